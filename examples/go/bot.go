// A minimal arena bot in Go: WebSocket (gorilla/websocket) + JSON text frames
// (subprotocol arena.v1.json). Build it with Debian's packages, no module proxy:
//
//	apt-get install golang-go golang-github-gorilla-websocket-dev
//	GOPATH=/usr/share/gocode GO111MODULE=off go build -o bot bot.go
//	ARENA_TOKEN=... ./bot -url ws://127.0.0.1:8765/ -games 2
//
// It plays any game: a random move from the turn's "legal" list or, when there are too
// many to list (the substitution game), a random move built step by step with "legal"
// requests. docs/bots.md describes every message.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand"
	"os"

	"github.com/gorilla/websocket"
)

// Message is any arena message: "type" and the other fields.
type Message map[string]interface{}

// LegalSteps is what may follow a partial move ("legal_steps").
type LegalSteps struct {
	Steps     []string
	CanEnd    bool
	Separator string
}

func stepsOf(value interface{}) LegalSteps {
	object, _ := value.(map[string]interface{})
	result := LegalSteps{Separator: ", "}
	if list, ok := object["steps"].([]interface{}); ok {
		for _, step := range list {
			result.Steps = append(result.Steps, step.(string))
		}
	}
	result.CanEnd, _ = object["can_end"].(bool)
	if separator, ok := object["separator"].(string); ok {
		result.Separator = separator
	}
	return result
}

func main() {
	url := flag.String("url", "ws://127.0.0.1:8765/", "the arena server")
	games := flag.Int("games", 0, "stop after this many games (0: never)")
	flag.Parse()
	dialer := websocket.Dialer{Subprotocols: []string{"arena.v1.json"}}
	conn, _, err := dialer.Dial(*url, nil)
	if err != nil {
		log.Fatalf("cannot connect: %v", err)
	}
	defer conn.Close()
	send := func(message Message) {
		if err := conn.WriteJSON(message); err != nil {
			log.Fatalf("send: %v", err)
		}
	}
	receive := func() Message {
		var message Message
		if err := conn.ReadJSON(&message); err != nil {
			log.Fatalf("receive: %v", err)
		}
		return message
	}
	send(Message{"type": "hello", "protocol": 1, "role": "bot", "token": os.Getenv("ARENA_TOKEN"),
		"capabilities": []string{"legal-moves"}, "client": "go-example"})
	finished := 0
	// One goroutine reads; moves are made in turn (a legal request waits for its answer,
	// and messages of other games that come meanwhile are kept for later).
	var later []Message
	next := func() Message {
		if len(later) > 0 {
			message := later[0]
			later = later[1:]
			return message
		}
		return receive()
	}
	for {
		message := next()
		switch message["type"] {
		case "welcome":
			fmt.Fprintf(os.Stderr, "connected as %v; ladder: %v\n", message["bot"], message["ladder"])
		case "your_turn":
			var move string
			if legal, ok := message["legal"].([]interface{}); ok && len(legal) > 0 {
				move = legal[rand.Intn(len(legal))].(string)
			} else if message["legal_steps"] != nil {
				options := stepsOf(message["legal_steps"])
				for len(options.Steps) > 0 && !(options.CanEnd && rand.Float64() < 0.3) {
					step := options.Steps[rand.Intn(len(options.Steps))]
					if move == "" {
						move = step
					} else {
						move = move + options.Separator + step
					}
					send(Message{"type": "legal", "game_id": message["game_id"], "turn": message["turn"], "steps": move})
					for {
						answer := receive()
						if answer["type"] == "legal_steps" {
							options = stepsOf(answer["legal_steps"])
							break
						}
						if answer["type"] == "error" && answer["game_id"] == message["game_id"] {
							log.Fatalf("legal: %v", answer["message"])
						}
						later = append(later, answer)
					}
				}
			}
			send(Message{"type": "log", "game_id": message["game_id"], "text": "playing " + move})
			send(Message{"type": "move", "game_id": message["game_id"], "turn": message["turn"], "move": move})
		case "error":
			fmt.Fprintf(os.Stderr, "error %v: %v\n", message["code"], message["message"])
			if fatal, _ := message["fatal"].(bool); fatal {
				return
			}
		case "game_over":
			finished++
			fmt.Fprintf(os.Stderr, "game %v: %v (%v: %v)\n", message["game_id"], message["result"],
				message["termination"], message["reason"])
			if *games > 0 && finished >= *games {
				return
			}
		case "ping":
			send(Message{"type": "pong", "id": message["id"]})
		}
	}
}
