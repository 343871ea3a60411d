import json


def first_move(turn, stdin, stdout):
    if turn.get("legal"):
        return turn["legal"][0]
    steps, options = "", turn["legal_steps"]
    while options["steps"]:
        step = options["steps"][0]
        steps = step if not steps else steps + options["separator"] + step
        print("?legal " + steps, file=stdout, flush=True)
        answer = json.loads(stdin.readline().partition(" ")[2])
        if "error" in answer:
            break
        options = answer["legal_steps"]
    return steps
