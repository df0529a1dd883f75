package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/affordances-go/affordances/client"
)

func (c *command) index(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usageError("index takes one URL")
	}
	idx, err := c.client.Index(ctx, args[0])
	if err != nil {
		return err
	}
	if c.o.json {
		return c.printJSON(idx)
	}
	printIndex(c.stdout, idx)
	return nil
}

func (c *command) get(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usageError("get takes one URL")
	}
	g, err := c.client.Graph(ctx, args[0])
	if err != nil {
		return err
	}
	if c.o.json {
		return c.printJSON(g)
	}
	printGraph(c.stdout, g, c.o.full)
	return nil
}

func (c *command) call(ctx context.Context, args []string) error {
	if len(args) < 2 {
		return usageError("call takes a URL, an action and its input")
	}
	page, action, rest := args[0], args[1], args[2:]
	input, err := c.input(ctx, page, action, rest)
	if err != nil {
		return err
	}
	c.sent = input
	var res *client.Result
	if c.o.approval != "" {
		res, err = c.client.CallApproved(ctx, page, action, input, c.o.approval)
	} else {
		res, err = c.client.Call(ctx, page, action, input)
	}
	if err != nil {
		return err
	}
	if c.o.token == "" && c.jar.lost() {
		// The site keeps what this call did (a guest cart, a session) in a
		// cookie that this run does not save: the next command would not
		// find it. Said once per run, on stderr, whatever the format.
		fmt.Fprintln(c.stderr, "note: the site set a cookie (a guest cart, a session) that afford keeps only with --cookie-jar FILE:\n  without it or a token (AFFORD_TOKEN), the next command starts afresh")
	}
	if c.o.json {
		if res.Next != nil {
			return c.printJSON(map[string]any{"delta": res.Delta, "next": res.Next})
		}
		return c.printJSON(res.Delta)
	}
	printDelta(c.stdout, &res.Delta)
	if res.Next != nil {
		fmt.Fprintln(c.stdout)
		printGraph(c.stdout, res.Next, c.o.full)
	}
	return nil
}

// input builds a call's input from the command line: one JSON object, or
// key=value pairs converted by the action's input schema, read from the
// page's graph.
func (c *command) input(ctx context.Context, page, action string, args []string) (any, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if len(args) == 1 && strings.HasPrefix(strings.TrimSpace(args[0]), "{") {
		var v map[string]any
		dec := json.NewDecoder(strings.NewReader(args[0]))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, inputError("the input is not a JSON object: " + strings.TrimPrefix(err.Error(), "json: "))
		}
		return v, nil
	}
	var schema json.RawMessage
	if g, err := c.client.Graph(ctx, page); err == nil {
		if a := g.Action(action); a != nil {
			schema = a.Input
		}
	}
	return pairsToInput(args, schema)
}

func (c *command) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "%s\n", b)
	return err
}
