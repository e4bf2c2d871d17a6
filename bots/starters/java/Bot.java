// starter-java: a Curia bot to copy and make your own (docs/bots.md, "stdio bots").
//
// The arena's stdio bridge talks to the game server for us. It writes one JSON message per
// line on our stdin; for each {"type": "decide", ...} we print one line, one of the strings
// in "legal", and flush. {"type": "end", ...} (or the end of stdin) ends the game. stdout
// is for answers only: log to stderr (System.err).
//
// The JDK has no JSON parser, so a small one is at the bottom of this file (Json.parse).
// It gives a general tree, so you can read the whole "observation" too:
//   JSON object -> Map<String, Object> (keys in order)   JSON array -> List<Object>
//   string -> String    integer -> Long    other number -> Double
//   true/false -> Boolean    null -> null
//
// Your logic goes in choose(). Everything else is plumbing you can keep as it is.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

public final class Bot {

    // What the bot keeps from one decision to the next (here, only its random generator).
    private final Random rng;

    Bot(long seed) {
        this.rng = new Random(seed);
    }

    // =====================================================================================
    // YOUR BOT: choose one decision.
    //
    // `message` is the whole decide message, parsed:
    //   message.get("game")          "municipium", "ciceron" or "leges"
    //   message.get("variant")       e.g. "classic"
    //   message.get("seat")          your seat (0-based), a Long
    //   message.get("observation")   what your seat may see: the game's JSON, a Map
    //                                (docs/bots.md describes each game's; "asked" is the
    //                                question being asked)
    //   message.get("legal")         the notations of your legal decisions, a List of String
    //   message.get("time_left_ms")  milliseconds left for this decision (Long), or null
    // Return one of the "legal" strings, exactly as written.
    // =====================================================================================
    String choose(Map<String, Object> message) {
        List<String> legal = new ArrayList<>();
        for (Object notation : (List<?>) message.get("legal")) {
            legal.add((String) notation);
        }
        // A one-line heuristic to replace with your own: never "skip" when anything else
        // is legal. Then pick at random among what is left.
        List<String> candidates = new ArrayList<>(legal);
        candidates.removeIf(notation -> notation.equals("skip"));
        if (candidates.isEmpty()) {
            candidates = legal;
        }
        return candidates.get(rng.nextInt(candidates.size()));
    }

    // =====================================================================================
    // The protocol loop
    // =====================================================================================
    public static void main(String[] args) throws IOException {
        // Seed every random choice from CURIA_BOT_SEED (an integer, up to 63 bits): the same
        // seed gives the same game, which makes a bug you saw once easy to see again.
        long seed = 0;
        String seedText = System.getenv("CURIA_BOT_SEED");
        if (seedText != null) {
            try {
                seed = Long.parseLong(seedText.trim());
            } catch (NumberFormatException e) {
                System.err.println("CURIA_BOT_SEED is not an integer: " + seedText);
            }
        }
        System.err.println("starter-java: seed " + seed);
        Bot bot = new Bot(seed);

        BufferedReader in = new BufferedReader(
            new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> message = (Map<String, Object>) Json.parse(line);
            Object type = message.get("type");
            if ("decide".equals(type)) {
                out.print(bot.choose(message) + "\n");
                out.flush(); // one line per answer, flushed at once
                if (out.checkError()) {
                    return; // the bridge is gone: the game is over
                }
            } else if ("end".equals(type)) {
                Object result = message.get("result");
                Object ranking = result instanceof Map ? ((Map<?, ?>) result).get("ranking") : null;
                System.err.println("game over, ranking: " + ranking);
                return;
            }
            // any other type: a message this bot does not know; skip it
        }
        // stdin closed: the game is over
    }

    // =====================================================================================
    // A small JSON parser (RFC 8259): Json.parse(text) gives the tree described above.
    // =====================================================================================
    static final class Json {
        private final String text;
        private int pos;

        private Json(String text) {
            this.text = text;
        }

        /** The value of one JSON text; IllegalArgumentException if it is not JSON. */
        static Object parse(String text) {
            Json parser = new Json(text);
            Object value = parser.value();
            parser.skipWhitespace();
            if (parser.pos != text.length()) {
                throw parser.error("unexpected text after the value");
            }
            return value;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("not JSON: " + what + " at character " + pos);
        }

        private char peek() {
            if (pos >= text.length()) {
                throw error("unexpected end");
            }
            return text.charAt(pos);
        }

        private void skipWhitespace() {
            while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
                pos++;
            }
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        private Object literal(String word, Object value) {
            if (!text.startsWith(word, pos)) {
                throw error("unexpected word");
            }
            pos += word.length();
            return value;
        }

        private Object value() {
            skipWhitespace();
            char c = peek();
            switch (c) {
                case '{': return object();
                case '[': return array();
                case '"': return string();
                case 't': return literal("true", Boolean.TRUE);
                case 'f': return literal("false", Boolean.FALSE);
                case 'n': return literal("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw error("unexpected character '" + c + "'");
            }
        }

        private Map<String, Object> object() {
            expect('{');
            Map<String, Object> members = new LinkedHashMap<>();
            skipWhitespace();
            if (peek() == '}') {
                pos++;
                return members;
            }
            while (true) {
                skipWhitespace();
                String key = string();
                skipWhitespace();
                expect(':');
                members.put(key, value());
                skipWhitespace();
                char c = peek();
                pos++;
                if (c == '}') {
                    return members;
                }
                if (c != ',') {
                    pos--;
                    throw error("expected ',' or '}'");
                }
            }
        }

        private List<Object> array() {
            expect('[');
            List<Object> items = new ArrayList<>();
            skipWhitespace();
            if (peek() == ']') {
                pos++;
                return items;
            }
            while (true) {
                items.add(value());
                skipWhitespace();
                char c = peek();
                pos++;
                if (c == ']') {
                    return items;
                }
                if (c != ',') {
                    pos--;
                    throw error("expected ',' or ']'");
                }
            }
        }

        private boolean digits() {
            int from = pos;
            while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
                pos++;
            }
            return pos > from;
        }

        private Object number() {
            int start = pos;
            boolean integral = true;
            if (peek() == '-') {
                pos++;
            }
            boolean ok;
            // No leading zeros: "0", "0.5" and "-0" but not "01".
            if (pos < text.length() && text.charAt(pos) == '0') {
                pos++;
                ok = true;
            } else {
                ok = digits();
            }
            if (ok && pos < text.length() && text.charAt(pos) == '.') {
                pos++;
                integral = false;
                ok = digits();
            }
            if (ok && pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
                pos++;
                integral = false;
                if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                    pos++;
                }
                ok = digits();
            }
            if (!ok) {
                throw error("bad number");
            }
            String number = text.substring(start, pos);
            if (integral) {
                try {
                    return Long.parseLong(number);
                } catch (NumberFormatException tooBig) {
                    // beyond a long: a Double below
                }
            }
            return Double.parseDouble(number);
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = peek();
                pos++;
                if (c == '"') {
                    return out.toString();
                }
                if (c < 0x20) {
                    throw error("control character in string");
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char escape = peek();
                pos++;
                switch (escape) {
                    case '"': out.append('"'); break;
                    case '\\': out.append('\\'); break;
                    case '/': out.append('/'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'n': out.append('\n'); break;
                    case 'r': out.append('\r'); break;
                    case 't': out.append('\t'); break;
                    case 'u':
                        // Java strings are UTF-16, as these escapes are: a surrogate pair (a
                        // character beyond U+FFFF) is simply its two halves appended.
                        int code = 0;
                        for (int i = 0; i < 4; i++) {
                            int digit = "0123456789abcdef".indexOf(Character.toLowerCase(peek()));
                            if (digit < 0) {
                                throw error("bad \\u escape");
                            }
                            code = code * 16 + digit;
                            pos++;
                        }
                        out.append((char) code);
                        break;
                    default:
                        throw error("bad escape '\\" + escape + "'");
                }
            }
        }
    }
}
