//! starter-rust: a Curia bot to copy and make your own (docs/bots.md, "stdio bots").
//!
//! The arena's stdio bridge talks to the game server for us. It writes one JSON message
//! per line on our stdin; for each `{"type": "decide", ...}` we print one line, one of the
//! strings in `legal`, and flush. `{"type": "end", ...}` (or the end of stdin) ends the
//! game. stdout is for answers only: log to stderr (`eprintln!`).
//!
//! No crates: the standard library has no JSON, so a small parser is at the bottom of this
//! file. It gives a general tree (`Json`), so you can read the whole `observation` too.
//!
//! Your logic goes in `Bot::choose`. Everything else is plumbing you can keep as it is.

use std::io::{self, BufRead, Write};

// =========================================================================================
// YOUR BOT
// =========================================================================================

/// What the bot keeps from one decision to the next (here, only its random generator).
struct Bot {
    rng: SplitMix64,
}

impl Bot {
    fn new(seed: u64) -> Bot {
        Bot {
            rng: SplitMix64(seed),
        }
    }

    /// Choose one decision. `message` is the whole decide message, parsed:
    ///
    /// - `message.get("game")`: `"municipium"`, `"ciceron"` or `"leges"`
    /// - `message.get("variant")`: e.g. `"classic"`
    /// - `message.get("seat")`: your seat (0-based)
    /// - `message.get("observation")`: what your seat may see, the game's JSON
    ///   (docs/bots.md describes each game's; `"asked"` is the question being asked)
    /// - `message.get("legal")`: the notations of your legal decisions (strings)
    /// - `message.get("time_left_ms")`: milliseconds left for this decision, or null
    ///
    /// Return one of the `legal` strings, exactly as written.
    fn choose(&mut self, message: &Json) -> String {
        let legal: Vec<&str> = message
            .get("legal")
            .and_then(Json::as_array)
            .unwrap_or(&[])
            .iter()
            .filter_map(Json::as_str)
            .collect();
        // A one-line heuristic to replace with your own: never "skip" when anything else
        // is legal. Then pick at random among what is left.
        let mut candidates: Vec<&str> = legal.iter().copied().filter(|d| *d != "skip").collect();
        if candidates.is_empty() {
            candidates = legal;
        }
        if candidates.is_empty() {
            return String::new(); // never happens: the bridge asks only when there is a choice
        }
        candidates[self.rng.below(candidates.len() as u64) as usize].to_string()
    }
}

// =========================================================================================
// The protocol loop
// =========================================================================================

fn main() {
    // Seed every random choice from CURIA_BOT_SEED (an integer, up to 63 bits): the same
    // seed gives the same game, which makes a bug you saw once easy to see again.
    let seed_text = std::env::var("CURIA_BOT_SEED").unwrap_or_else(|_| "0".to_string());
    let seed = seed_text
        .trim()
        .parse::<i64>()
        .map(|s| s as u64)
        .unwrap_or(0);
    eprintln!("starter-rust: seed {}", seed);
    let mut bot = Bot::new(seed);

    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                eprintln!("cannot read stdin: {}", error);
                std::process::exit(1);
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let message = match parse_json(&line) {
            Ok(message) => message,
            Err(error) => {
                eprintln!("not JSON ({}): {}", error, line);
                std::process::exit(1);
            }
        };
        match message.get("type").and_then(Json::as_str) {
            Some("decide") => {
                let answer = bot.choose(&message);
                // One line per answer, flushed at once (stdout is buffered).
                if writeln!(out, "{}", answer)
                    .and_then(|_| out.flush())
                    .is_err()
                {
                    return; // the bridge is gone: the game is over
                }
            }
            Some("end") => {
                let ranking = message.get("result").and_then(|r| r.get("ranking"));
                eprintln!("game over, ranking: {}", ranking.unwrap_or(&Json::Null));
                return;
            }
            _ => {} // a message type this bot does not know: skip it
        }
    }
    // stdin closed: the game is over; returning from main exits 0
}

/// SplitMix64: a tiny, good-enough random generator (the standard library has none).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A random number in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// =========================================================================================
// A small JSON parser (RFC 8259): a general value tree
// =========================================================================================

/// A JSON value. Objects keep their keys in order; numbers are f64 (exact for integers up
/// to 2^53, which covers every number Curia sends).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

#[allow(dead_code)] // helpers for your own code: keep them
impl Json {
    /// The value of `key` in an object; None if absent or not an object.
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }
    fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => Some(*n),
            _ => None,
        }
    }
    fn as_i64(&self) -> Option<i64> {
        self.as_f64().map(|n| n as i64)
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        *self == Json::Null
    }
}

/// Written back as compact JSON: `eprintln!("{}", message.get("observation")...)` logs it.
impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Json::Null => write!(f, "null"),
            Json::Bool(b) => write!(f, "{}", b),
            Json::Number(n) => write!(f, "{}", n),
            Json::String(s) => write_string(f, s),
            Json::Array(items) => {
                write!(f, "[")?;
                for (i, item) in items.iter().enumerate() {
                    write!(f, "{}{}", if i > 0 { "," } else { "" }, item)?;
                }
                write!(f, "]")
            }
            Json::Object(members) => {
                write!(f, "{{")?;
                for (i, (key, value)) in members.iter().enumerate() {
                    write!(f, "{}", if i > 0 { "," } else { "" })?;
                    write_string(f, key)?;
                    write!(f, ":{}", value)?;
                }
                write!(f, "}}")
            }
        }
    }
}

fn write_string(f: &mut std::fmt::Formatter, s: &str) -> std::fmt::Result {
    write!(f, "\"")?;
    for c in s.chars() {
        match c {
            '"' => write!(f, "\\\"")?,
            '\\' => write!(f, "\\\\")?,
            c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
            c => write!(f, "{}", c)?,
        }
    }
    write!(f, "\"")
}

/// Parse one JSON text (surrounding whitespace allowed).
fn parse_json(text: &str) -> Result<Json, String> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        pos: 0,
    };
    let value = parser.value()?;
    parser.skip_whitespace();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error("unexpected text after the value"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, what: &str) -> String {
        format!("{} at byte {}", what, self.pos)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", byte as char)))
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("unexpected word"))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_whitespace();
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("unexpected character")),
            None => Err(self.error("unexpected end")),
        }
    }

    fn object(&mut self) -> Result<Json, String> {
        self.expect(b'{')?;
        let mut members = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_whitespace();
            let key = self.string()?;
            self.skip_whitespace();
            self.expect(b':')?;
            let value = self.value()?;
            members.push((key, value));
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self) -> Result<Json, String> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.pos;
        let digits = |p: &mut Parser| {
            let from = p.pos;
            while let Some(b'0'..=b'9') = p.peek() {
                p.pos += 1;
            }
            p.pos > from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        // No leading zeros: "0", "0.5" and "-0" but not "01"
        let mut ok = if self.peek() == Some(b'0') {
            self.pos += 1;
            true
        } else {
            digits(self)
        };
        if ok && self.peek() == Some(b'.') {
            self.pos += 1;
            ok = digits(self);
        }
        if ok && matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            ok = digits(self);
        }
        // The slice is ASCII digits and signs: always valid UTF-8.
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap_or("");
        match text.parse::<f64>() {
            Ok(n) if ok => Ok(Json::Number(n)),
            _ => Err(self.error("bad number")),
        }
    }

    /// Four hex digits of a \u escape.
    fn hex4(&mut self) -> Result<u32, String> {
        let hex = self.bytes.get(self.pos..self.pos + 4).unwrap_or(&[]);
        if hex.len() != 4 || !hex.iter().all(u8::is_ascii_hexdigit) {
            return Err(self.error("bad \\u escape"));
        }
        // Four ASCII hex digits: valid UTF-8, and a valid number.
        let code = u32::from_str_radix(std::str::from_utf8(hex).unwrap_or("0"), 16).unwrap_or(0);
        self.pos += 4;
        Ok(code)
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out: Vec<u8> = Vec::new(); // UTF-8 bytes, copied as they come
        loop {
            let byte = self
                .peek()
                .ok_or_else(|| self.error("unterminated string"))?;
            self.pos += 1;
            match byte {
                b'"' => break,
                b'\\' => {
                    let escape = self
                        .peek()
                        .ok_or_else(|| self.error("unterminated string"))?;
                    self.pos += 1;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let mut code = self.hex4()?;
                            // A character beyond U+FFFF comes as two escapes, a surrogate pair.
                            if (0xD800..0xDC00).contains(&code)
                                && self.bytes[self.pos..].starts_with(b"\\u")
                            {
                                let saved = self.pos;
                                self.pos += 2;
                                let low = self.hex4()?;
                                if (0xDC00..0xE000).contains(&low) {
                                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                                } else {
                                    self.pos = saved; // not a pair: read it on its own
                                }
                            }
                            // A lone surrogate is no character: U+FFFD stands for it.
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(self.error("bad escape")),
                    };
                    let mut buffer = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                }
                0x00..=0x1F => return Err(self.error("control character in string")),
                _ => out.push(byte),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("invalid UTF-8"))
    }
}
