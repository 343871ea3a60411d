// A line-protocol bot in C++ (standard library only): the first legal move, or one
// built step by step with ?legal. No JSON library: it needs only the first string of a
// list, found after its key.
#include <iostream>
#include <string>

static std::string first_string(const std::string &text, const std::string &key, bool &found) {
    found = false;
    auto at = text.find("\"" + key + "\":");
    if (at == std::string::npos) return "";
    at += key.size() + 3;
    if (text.compare(at, 4, "null") == 0) return "";
    at = text.find('[', at);
    if (at == std::string::npos || text[at + 1] != '"') return "";
    std::string out;
    for (at += 2; at < text.size() && text[at] != '"'; ++at) {
        if (text[at] == '\\' && at + 1 < text.size()) ++at;
        out += text[at];
    }
    found = true;
    return out;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.rfind("turn ", 0) == 0) {
            bool found;
            std::string move = first_string(line, "legal", found);
            if (!found) {
                std::string separator = ", ";
                auto sep = line.find("\"separator\":\"");
                if (sep != std::string::npos) {
                    sep += 13;
                    separator = line.substr(sep, line.find('"', sep) - sep);
                }
                std::string options = line.substr(line.find("\"legal_steps\":"));
                move.clear();
                for (std::string step = first_string(options, "steps", found); found;
                     step = first_string(options, "steps", found)) {
                    move += (move.empty() ? "" : separator) + step;
                    std::cout << "?legal " << move << std::endl;
                    if (!std::getline(std::cin, options) || options.find("\"error\":") != std::string::npos)
                        break;
                }
            }
            std::cout << "# c++ playing " << move << "\n" << move << std::endl;
        } else if (line == "quit") {
            break;
        }
    }
}
