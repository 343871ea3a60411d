"""The page states the accessibility and colour-scheme tests visit."""

PAGES = ("/", "/bots", "/replay", "/tournaments", "/tournament?name=round-robin/tournament.json&cell=0-1",
         "/ladder", "/seasons", "/editor", "/account", "/mine", "/operator")

LOBBY = {  # what the lobby needs to start each game against a house bot
    "substitution": {"#grammar": "medium", "#bot": "random"},
    "sim": {"#sim-vertices": "5", "#bot": "sim-random"},
    "heaps": {"#bot": "heaps-random"},
    "durak": {"#durak-deal": "given", "#bot": "durak-greedy"},
    "tiles": {"#bot": "tiles-random"},
}
