package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/examples/shop/shop"
)

func mcpCompare(ctx context.Context, e *Env, smoke bool) ([]Row, error) {
	return nil, errors.New("not yet")
}

var _ = mcp.NewServer
var _ = client.New
var _ = shop.DemoEmail
var _ = http.NoBody
var _ = sort.Ints
var _ = time.Now
var _ = fmt.Sprint
