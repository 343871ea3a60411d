// A line-protocol bot in Java (no library): the first legal move, or one built step by
// step with ?legal. It needs only the first string of a list, found after its key.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

public class Bot {
    static String firstString(String text, String key) {
        int at = text.indexOf("\"" + key + "\":");
        if (at < 0) return null;
        at += key.length() + 3;
        if (text.startsWith("null", at)) return null;
        at = text.indexOf('[', at);
        if (at < 0 || text.charAt(at + 1) != '"') return null;
        StringBuilder out = new StringBuilder();
        for (at += 2; at < text.length() && text.charAt(at) != '"'; at++) {
            if (text.charAt(at) == '\\') at++;
            out.append(text.charAt(at));
        }
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("turn ")) {
                String move = firstString(line, "legal");
                if (move == null) {
                    int sep = line.indexOf("\"separator\":\"");
                    String separator = sep < 0 ? ", " : line.substring(sep + 13, line.indexOf('"', sep + 13));
                    String options = line.substring(line.indexOf("\"legal_steps\":"));
                    move = "";
                    for (String step = firstString(options, "steps"); step != null; step = firstString(options, "steps")) {
                        move = move.isEmpty() ? step : move + separator + step;
                        out.println("?legal " + move);
                        options = in.readLine();
                        if (options == null || options.contains("\"error\":")) break;
                    }
                }
                out.println("# java playing " + move);
                out.println(move);
            } else if (line.equals("quit")) {
                break;
            }
        }
    }
}
