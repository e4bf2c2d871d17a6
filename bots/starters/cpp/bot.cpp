// starter-cpp: a Curia bot to copy and make your own (docs/bots.md, "stdio bots").
//
// The arena's stdio bridge talks to the game server for us. It writes one JSON message per
// line on our stdin; for each {"type": "decide", ...} we print one line, one of the strings
// in "legal", and flush. {"type": "end", ...} (or the end of stdin) ends the game. stdout
// is for answers only: log to stderr (std::cerr).
//
// C++17, standard library only. It has no JSON, so a small parser is at the bottom of this
// file (parse_json). It gives a general tree (Json), so you can read the whole
// "observation" too.
//
// Your logic goes in Bot::choose. Everything else is plumbing you can keep as it is.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// A JSON value: null, a boolean, a number (a double: exact for integers up to 2^53, which
// covers every number Curia sends), a string (UTF-8), an array or an object (its members
// in order). `value["key"]` and `value[i]` read into it; a missing member or index gives a
// null value instead of throwing, so `message["result"]["ranking"]` is always safe.
struct Json {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Json> items;                           // an array's items
    std::vector<std::pair<std::string, Json>> members;  // an object's members

    bool is_null() const { return kind == Kind::Null; }
    bool is_string() const { return kind == Kind::String; }
    bool is_array() const { return kind == Kind::Array; }
    bool is_object() const { return kind == Kind::Object; }

    const Json& operator[](const std::string& key) const {
        for (const auto& member : members) {
            if (member.first == key) return member.second;
        }
        return none();
    }
    const Json& operator[](std::size_t index) const {
        return index < items.size() ? items[index] : none();
    }
    std::size_t size() const { return kind == Kind::Object ? members.size() : items.size(); }
    // Written back as compact JSON: std::cerr << message["observation"].dump() logs it.
    std::string dump() const;

  private:
    static const Json& none() {
        static const Json null_value;
        return null_value;
    }
};

Json parse_json(const std::string& text);  // below; throws std::runtime_error if not JSON

// =========================================================================================
// YOUR BOT
// =========================================================================================

// What the bot keeps from one decision to the next (here, only its random generator).
struct Bot {
    std::mt19937_64 rng;

    explicit Bot(std::uint64_t seed) : rng(seed) {}

    // Choose one decision. `message` is the whole decide message, parsed:
    //   message["game"].string         "municipium", "ciceron" or "leges"
    //   message["variant"].string      e.g. "classic"
    //   message["seat"].number         your seat (0-based)
    //   message["observation"]         what your seat may see: the game's JSON
    //                                  (docs/bots.md describes each game's; ["asked"] is
    //                                  the question being asked)
    //   message["legal"]               the notations of your legal decisions (strings)
    //   message["time_left_ms"]        milliseconds left for this decision; null: no limit
    // Return one of the "legal" strings, exactly as written.
    std::string choose(const Json& message) {
        std::vector<std::string> legal;
        for (const Json& notation : message["legal"].items) legal.push_back(notation.string);
        // A one-line heuristic to replace with your own: never "skip" when anything else
        // is legal. Then pick at random among what is left.
        std::vector<std::string> candidates;
        for (const std::string& notation : legal) {
            if (notation != "skip") candidates.push_back(notation);
        }
        if (candidates.empty()) candidates = legal;
        if (candidates.empty()) return "";  // never: the bridge asks only when there is a choice
        std::uniform_int_distribution<std::size_t> pick(0, candidates.size() - 1);
        return candidates[pick(rng)];
    }
};

// =========================================================================================
// The protocol loop
// =========================================================================================

int main() {
    std::ios::sync_with_stdio(false);
    // Seed every random choice from CURIA_BOT_SEED (an integer, up to 63 bits): the same
    // seed gives the same game, which makes a bug you saw once easy to see again.
    const char* seed_text = std::getenv("CURIA_BOT_SEED");
    std::uint64_t seed = seed_text ? std::strtoull(seed_text, nullptr, 10) : 0;
    std::cerr << "starter-cpp: seed " << seed << std::endl;
    Bot bot(seed);

    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        Json message;
        try {
            message = parse_json(line);
        } catch (const std::exception& error) {
            std::cerr << "not JSON (" << error.what() << "): " << line << std::endl;
            return 1;
        }
        const std::string& type = message["type"].string;
        if (type == "decide") {
            // One line per answer, flushed at once (std::endl flushes).
            std::cout << bot.choose(message) << std::endl;
            if (!std::cout) return 0;  // the bridge is gone: the game is over
        } else if (type == "end") {
            std::cerr << "game over, ranking: " << message["result"]["ranking"].dump() << std::endl;
            return 0;
        }
        // any other type: a message this bot does not know; skip it
    }
    return 0;  // stdin closed: the game is over
}

// =========================================================================================
// A small JSON parser (RFC 8259): parse_json(text) gives the Json tree described above.
// =========================================================================================

namespace {

class Parser {
  public:
    explicit Parser(const std::string& text) : text_(text) {}

    Json document() {
        Json result = value();
        skip_whitespace();
        if (pos_ != text_.size()) fail("unexpected text after the value");
        return result;
    }

  private:
    const std::string& text_;
    std::size_t pos_ = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error(what + " at byte " + std::to_string(pos_));
    }

    char peek() const {
        if (pos_ >= text_.size()) fail("unexpected end");
        return text_[pos_];
    }

    void skip_whitespace() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                       text_[pos_] == '\n' || text_[pos_] == '\r')) {
            ++pos_;
        }
    }

    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }

    Json literal(const std::string& word, Json::Kind kind, bool boolean) {
        if (text_.compare(pos_, word.size(), word) != 0) fail("unexpected word");
        pos_ += word.size();
        Json result;
        result.kind = kind;
        result.boolean = boolean;
        return result;
    }

    Json value() {
        skip_whitespace();
        char c = peek();
        if (c == '{') return object();
        if (c == '[') return array();
        if (c == '"') {
            Json result;
            result.kind = Json::Kind::String;
            result.string = string();
            return result;
        }
        if (c == 't') return literal("true", Json::Kind::Bool, true);
        if (c == 'f') return literal("false", Json::Kind::Bool, false);
        if (c == 'n') return literal("null", Json::Kind::Null, false);
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        fail(std::string("unexpected character '") + c + "'");
    }

    Json object() {
        expect('{');
        Json result;
        result.kind = Json::Kind::Object;
        skip_whitespace();
        if (peek() == '}') {
            ++pos_;
            return result;
        }
        while (true) {
            skip_whitespace();
            std::string key = string();
            skip_whitespace();
            expect(':');
            Json member = value();
            result.members.emplace_back(std::move(key), std::move(member));
            skip_whitespace();
            char c = peek();
            if (c != ',' && c != '}') fail("expected ',' or '}'");
            ++pos_;
            if (c == '}') return result;
        }
    }

    Json array() {
        expect('[');
        Json result;
        result.kind = Json::Kind::Array;
        skip_whitespace();
        if (peek() == ']') {
            ++pos_;
            return result;
        }
        while (true) {
            result.items.push_back(value());
            skip_whitespace();
            char c = peek();
            if (c != ',' && c != ']') fail("expected ',' or ']'");
            ++pos_;
            if (c == ']') return result;
        }
    }

    bool digits() {
        std::size_t from = pos_;
        while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
        return pos_ > from;
    }

    Json number() {
        std::size_t start = pos_;
        if (text_[pos_] == '-') ++pos_;
        bool ok;
        if (pos_ < text_.size() && text_[pos_] == '0') {  // no leading zeros: "0.5", not "01"
            ++pos_;
            ok = true;
        } else {
            ok = digits();
        }
        if (ok && pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            ok = digits();
        }
        if (ok && pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
            ok = digits();
        }
        if (!ok) fail("bad number");
        Json result;
        result.kind = Json::Kind::Number;
        // strtod reads the C locale's '.' (a C++ program starts in the "C" locale)
        result.number = std::strtod(text_.substr(start, pos_ - start).c_str(), nullptr);
        return result;
    }

    // Four hex digits of a \u escape.
    std::uint32_t hex4() {
        std::uint32_t code = 0;
        for (int i = 0; i < 4; ++i) {
            char c = peek();
            ++pos_;
            code <<= 4;
            if (c >= '0' && c <= '9') code |= static_cast<std::uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f') code |= static_cast<std::uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') code |= static_cast<std::uint32_t>(c - 'A' + 10);
            else fail("bad \\u escape");
        }
        return code;
    }

    static void append_utf8(std::string& out, std::uint32_t code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string string() {
        expect('"');
        std::string out;  // UTF-8 bytes, copied as they come
        while (true) {
            char c = peek();
            ++pos_;
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
            if (c != '\\') {
                out += c;
                continue;
            }
            char escape = peek();
            ++pos_;
            switch (escape) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    std::uint32_t code = hex4();
                    // A character beyond U+FFFF comes as two escapes, a surrogate pair.
                    if (code >= 0xD800 && code < 0xDC00 &&
                        text_.compare(pos_, 2, "\\u") == 0) {
                        std::size_t saved = pos_;
                        pos_ += 2;
                        std::uint32_t low = hex4();
                        if (low >= 0xDC00 && low < 0xE000) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        } else {
                            pos_ = saved;  // not a pair: read it on its own
                        }
                    }
                    // A lone surrogate is no character: U+FFFD stands for it.
                    if (code >= 0xD800 && code < 0xE000) code = 0xFFFD;
                    append_utf8(out, code);
                    break;
                }
                default:
                    fail(std::string("bad escape '\\") + escape + "'");
            }
        }
    }
};

}  // namespace

Json parse_json(const std::string& text) { return Parser(text).document(); }

static void dump_string(std::string& out, const std::string& text) {
    out += '"';
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04x", c);
            out += escape;
        } else {
            out += c;
        }
    }
    out += '"';
}

std::string Json::dump() const {
    std::string out;
    switch (kind) {
        case Kind::Null: return "null";
        case Kind::Bool: return boolean ? "true" : "false";
        case Kind::Number: {
            char text[32];
            std::snprintf(text, sizeof text, "%.17g", number);
            return text;
        }
        case Kind::String: dump_string(out, string); return out;
        case Kind::Array:
            out += '[';
            for (std::size_t i = 0; i < items.size(); ++i) {
                if (i > 0) out += ',';
                out += items[i].dump();
            }
            return out + ']';
        case Kind::Object:
            out += '{';
            for (std::size_t i = 0; i < members.size(); ++i) {
                if (i > 0) out += ',';
                dump_string(out, members[i].first);
                out += ':';
                out += members[i].second.dump();
            }
            return out + '}';
    }
    return out;
}
