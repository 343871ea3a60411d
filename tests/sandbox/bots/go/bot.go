// A line-protocol bot in Go (standard library only): the first legal move, or one
// built step by step with ?legal.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type steps struct {
	Steps     []string `json:"steps"`
	Separator string   `json:"separator"`
}

type turn struct {
	Legal      []string `json:"legal"`
	LegalSteps *steps   `json:"legal_steps"`
}

type answer struct {
	LegalSteps *steps          `json:"legal_steps"`
	Error      json.RawMessage `json:"error"`
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	read := func() (string, bool) {
		line, err := in.ReadString('\n')
		return strings.TrimRight(line, "\r\n"), err == nil
	}
	for {
		line, ok := read()
		if !ok || line == "quit" {
			return
		}
		if !strings.HasPrefix(line, "turn ") {
			continue
		}
		var t turn
		if err := json.Unmarshal([]byte(line[5:]), &t); err != nil {
			fmt.Fprintln(os.Stderr, "bad turn:", err)
			return
		}
		move := ""
		if len(t.Legal) > 0 {
			move = t.Legal[0]
		} else if t.LegalSteps != nil {
			options := t.LegalSteps
			for len(options.Steps) > 0 {
				if move == "" {
					move = options.Steps[0]
				} else {
					move += options.Separator + options.Steps[0]
				}
				fmt.Fprintf(out, "?legal %s\n", move)
				out.Flush()
				reply, _ := read()
				var a answer
				if json.Unmarshal([]byte(strings.TrimPrefix(reply, "legal ")), &a) != nil ||
					len(a.Error) > 0 || a.LegalSteps == nil {
					break
				}
				options = a.LegalSteps
			}
		}
		fmt.Fprintf(out, "# go playing %q\n%s\n", move, move)
		out.Flush()
	}
}
