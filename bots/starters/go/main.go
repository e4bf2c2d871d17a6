// starter-go: a Curia bot to copy and make your own (docs/bots.md, "stdio bots").
//
// The arena's stdio bridge talks to the game server for us. It writes one JSON message per
// line on our stdin; for each {"type": "decide", ...} we print one line, one of the strings
// in "legal", and flush. {"type": "end", ...} (or the end of stdin) ends the game. stdout
// is for answers only: log to stderr (the log package writes there).
//
// Standard library only (encoding/json reads the messages). Your logic goes in
// Bot.Choose. Everything else is plumbing you can keep as it is.
package main

import (
	"bufio"
	"encoding/json"
	"log"
	"math/rand"
	"os"
	"strconv"
	"strings"
)

// Message is one line from the bridge. A "decide" message fills every field but Result;
// an "end" message has Result (and "forfeited").
type Message struct {
	Type    string `json:"type"`
	Game    string `json:"game"`    // "municipium", "ciceron" or "leges"
	Variant string `json:"variant"` // e.g. "classic"
	Seat    int    `json:"seat"`    // your seat (0-based)
	// What your seat may see: the game's JSON as a tree of map[string]any, []any, string,
	// float64, bool and nil (docs/bots.md describes each game's; "asked" is the question).
	// For typed access, declare a struct for the parts you need and decode into it instead.
	Observation map[string]any `json:"observation"`
	Legal       []string       `json:"legal"`        // the notations of your legal decisions
	TimeLeftMs  *int64         `json:"time_left_ms"` // ms left for this decision; nil: no limit
	Result      map[string]any `json:"result"`       // "end": the result of the game
}

// =======================================================================================
// YOUR BOT
// =======================================================================================

// Bot is what the bot keeps from one decision to the next (here, its random generator).
type Bot struct {
	rng *rand.Rand
}

// Choose chooses one decision for a "decide" message: it returns one of message.Legal,
// exactly as written.
func (bot *Bot) Choose(message *Message) string {
	// A one-line heuristic to replace with your own: never "skip" when anything else is
	// legal. Then pick at random among what is left.
	candidates := []string{}
	for _, notation := range message.Legal {
		if notation != "skip" {
			candidates = append(candidates, notation)
		}
	}
	if len(candidates) == 0 {
		candidates = message.Legal
	}
	return candidates[bot.rng.Intn(len(candidates))]
}

// =======================================================================================
// The protocol loop
// =======================================================================================

func main() {
	log.SetFlags(0) // plain lines on stderr
	// Seed every random choice from CURIA_BOT_SEED (an integer, up to 63 bits): the same
	// seed gives the same game, which makes a bug you saw once easy to see again.
	seed, err := strconv.ParseInt(strings.TrimSpace(os.Getenv("CURIA_BOT_SEED")), 10, 64)
	if err != nil {
		seed = 0
	}
	log.Printf("starter-go: seed %d", seed)
	bot := &Bot{rng: rand.New(rand.NewSource(seed))}

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20) // an observation line can be long
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		line := in.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var message Message
		if err := json.Unmarshal(line, &message); err != nil {
			log.Fatalf("not JSON (%v): %s", err, line)
		}
		switch message.Type {
		case "decide":
			out.WriteString(bot.Choose(&message) + "\n")
			// One line per answer, flushed at once (the writer is buffered).
			if err := out.Flush(); err != nil {
				return // the bridge is gone: the game is over
			}
		case "end":
			log.Printf("game over, ranking: %v", message.Result["ranking"])
			return
		default:
			// a message type this bot does not know: skip it
		}
	}
	if err := in.Err(); err != nil {
		log.Fatalf("cannot read stdin: %v", err)
	}
	// stdin closed: the game is over
}
