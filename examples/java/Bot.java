// A minimal arena bot in Java 17: WebSocket (java.net.http, in the JDK) + JSON text
// frames (subprotocol arena.v1.json), no dependency. Run it as a source file:
//
//     ARENA_TOKEN=... java Bot.java ws://127.0.0.1:8765/ --games 2
//
// or compile it once: javac -d out Bot.java && ARENA_TOKEN=... java -cp out Bot URL.
// It plays any game: a random move from the turn's "legal" list or, when there are too
// many to list (the substitution game), a random move built step by step with "legal"
// requests. docs/bots.md describes every message; README.md lists the Java pitfalls.

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;

public final class Bot {
    private static final Object CLOSED = new Object();
    private final BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    private final Deque<Map<String, Object>> later = new ArrayDeque<>();
    private final Random random = new Random();
    private WebSocket socket;

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : "ws://127.0.0.1:8765/";
        int games = 0;
        for (int i = 1; i + 1 < args.length; i++) {
            if (args[i].equals("--games")) {
                games = Integer.parseInt(args[i + 1]);
            }
        }
        System.exit(new Bot().play(url, games));
    }

    int play(String url, int games) throws Exception {
        // Pitfall: the subprotocol must be offered, or the server answers HTTP 400.
        socket = HttpClient.newHttpClient().newWebSocketBuilder()
                .subprotocols("arena.v1.json")
                .buildAsync(URI.create(url), new Listener()).join();
        send(Map.of("type", "hello", "protocol", 1, "role", "bot",
                "token", System.getenv().getOrDefault("ARENA_TOKEN", ""),
                "capabilities", List.of("legal-moves"), "client", "java-example"));
        int finished = 0;
        while (true) {
            Map<String, Object> message = next();
            if (message == null) {
                System.err.println("the server closed the connection");
                return 1;
            }
            switch (String.valueOf(message.get("type"))) {
                case "welcome" -> System.err.println("connected as " + message.get("bot")
                        + "; ladder: " + Json.write(message.get("ladder")));
                case "your_turn" -> move(message);
                case "error" -> {
                    System.err.println("error " + message.get("code") + ": " + message.get("message"));
                    if (Boolean.TRUE.equals(message.get("fatal"))) {
                        return 1;
                    }
                }
                case "game_over" -> {
                    finished++;
                    System.err.println("game " + message.get("game_id") + ": " + message.get("result")
                            + " (" + message.get("termination") + ": " + message.get("reason") + ")");
                    if (games > 0 && finished >= games) {
                        socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").join();
                        return 0;
                    }
                }
                case "ping" -> send(Map.of("type", "pong", "id", message.get("id")));
                default -> { }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void move(Map<String, Object> turn) throws InterruptedException {
        Object gameId = turn.get("game_id");
        Object number = turn.get("turn"); // echo it as it came (a Long)
        String move = "";
        if (turn.get("legal") instanceof List<?> legal && !legal.isEmpty()) {
            move = (String) legal.get(random.nextInt(legal.size()));
        } else if (turn.get("legal_steps") instanceof Map<?, ?> first) {
            Map<String, Object> options = (Map<String, Object>) first;
            while (true) {
                List<Object> steps = (List<Object>) options.get("steps");
                boolean canEnd = Boolean.TRUE.equals(options.get("can_end"));
                // can_end: the steps so far are a whole legal move; steps: what may follow.
                if (steps.isEmpty() || (canEnd && random.nextInt(10) < 3)) {
                    break;
                }
                String step = (String) steps.get(random.nextInt(steps.size()));
                move = move.isEmpty() ? step : move + options.get("separator") + step;
                send(Map.of("type", "legal", "game_id", gameId, "turn", number, "steps", move));
                options = answer(gameId);
                if (options == null) {
                    return;
                }
            }
        }
        send(Map.of("type", "log", "game_id", gameId, "text", "playing " + move));
        send(Map.of("type", "move", "game_id", gameId, "turn", number, "move", move));
    }

    /** The legal_steps answering our legal request; other messages wait in `later`. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> answer(Object gameId) throws InterruptedException {
        while (true) {
            Map<String, Object> message = receive();
            if (message == null) {
                return null;
            }
            if ("legal_steps".equals(message.get("type"))) {
                return (Map<String, Object>) message.get("legal_steps");
            }
            if ("error".equals(message.get("type")) && gameId.equals(message.get("game_id"))) {
                throw new IllegalStateException("legal: " + message.get("message"));
            }
            later.add(message);
        }
    }

    private Map<String, Object> next() throws InterruptedException {
        return later.isEmpty() ? receive() : later.poll();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> receive() throws InterruptedException {
        Object item = inbox.take();
        return item == CLOSED ? null : (Map<String, Object>) Json.read((String) item);
    }

    private void send(Map<String, Object> message) {
        // Pitfall: one send at a time; join() before the next (or an IllegalStateException).
        socket.sendText(Json.write(message), true).join();
    }

    /** Frames come in on the HTTP client's threads: each whole text goes to `inbox`. */
    private final class Listener implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data); // Pitfall: a frame may come in parts; `last` ends it.
            if (last) {
                inbox.add(partial.toString());
                partial.setLength(0);
            }
            webSocket.request(1); // Pitfall: without it, no further message is delivered.
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int status, String reason) {
            System.err.println("closed " + status + " " + reason);
            inbox.add(CLOSED);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            System.err.println("connection error: " + error);
            inbox.add(CLOSED);
        }
    }

    /** Just enough JSON: objects (ordered maps), arrays, strings, numbers, true/false/null. */
    static final class Json {
        private final String text;
        private int at;

        private Json(String text) {
            this.text = text;
        }

        static Object read(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.space();
            if (json.at != text.length()) {
                throw new IllegalArgumentException("text after the JSON value at " + json.at);
            }
            return value;
        }

        private void space() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private Object value() {
            space();
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> map = new LinkedHashMap<>();
                at++;
                space();
                if (text.charAt(at) == '}') {
                    at++;
                    return map;
                }
                while (true) {
                    space();
                    String key = string();
                    space();
                    expect(':');
                    map.put(key, value());
                    space();
                    if (text.charAt(at++) == '}') {
                        return map;
                    }
                }
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                at++;
                space();
                if (text.charAt(at) == ']') {
                    at++;
                    return list;
                }
                while (true) {
                    list.add(value());
                    space();
                    if (text.charAt(at++) == ']') {
                        return list;
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            for (String word : new String[] {"true", "false", "null"}) {
                if (text.startsWith(word, at)) {
                    at += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word.equals("true"));
                }
            }
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            String number = text.substring(start, at);
            // Pitfall: integers may exceed an int (ids, seeds are strings; clocks are ms).
            return number.matches("-?[0-9]+") ? (Object) Long.valueOf(number) : Double.valueOf(number);
        }

        private void expect(char c) {
            if (text.charAt(at++) != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + (at - 1));
            }
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> out.append(e);
                }
            }
        }

        static String write(Object value) {
            StringBuilder out = new StringBuilder();
            write(value, out);
            return out.toString();
        }

        private static void write(Object value, StringBuilder out) {
            if (value == null) {
                out.append("null");
            } else if (value instanceof String s) {
                out.append('"');
                for (char c : s.toCharArray()) {
                    if (c == '"' || c == '\\') {
                        out.append('\\').append(c);
                    } else if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
                out.append('"');
            } else if (value instanceof Map<?, ?> map) {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    out.append(first ? "" : ",");
                    first = false;
                    write(String.valueOf(entry.getKey()), out);
                    out.append(':');
                    write(entry.getValue(), out);
                }
                out.append('}');
            } else if (value instanceof List<?> list) {
                out.append('[');
                for (int i = 0; i < list.size(); i++) {
                    out.append(i == 0 ? "" : ",");
                    write(list.get(i), out);
                }
                out.append(']');
            } else {
                out.append(value); // numbers and booleans
            }
        }
    }
}
