package overload_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The open-loop load comes from a process of its own, this test binary
// run again with generatorEnv set: its thousands of goroutines then
// share the cores with the store as another program would, without
// sharing the store's scheduler and heap.
const generatorEnv = "AFFORDANCES_OVERLOAD_GENERATOR"

// maxOutstanding bounds the generator: past it, the machine cannot keep
// the rate and the measurement means nothing.
const maxOutstanding = 4000

func TestMain(m *testing.M) {
	if os.Getenv(generatorEnv) != "" {
		if err := generate(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "generator:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// genSpec is the load: calls sent to URL at Rate a second, in order.
type genSpec struct {
	URL   string
	Rate  float64
	Calls []genCall
}

type genCall struct{ Token, Body, Key string }

// genResult is what the generator saw: one answer per call sent.
type genResult struct {
	Saturated bool
	Elapsed   time.Duration
	Answers   []genAnswer
}

type genAnswer struct {
	Status     int
	Code       string
	RetryAfter string
	Latency    time.Duration
	Err        string
}

func (a genAnswer) answer() answer {
	out := answer{status: a.Status, code: a.Code, retryAfter: a.RetryAfter, latency: a.Latency}
	if a.Err != "" {
		out.err = errors.New(a.Err)
	}
	return out
}

// generate reads a genSpec, sends its calls on schedule, each in its own
// goroutine, writes "stopped" on a line when the last one is sent, then
// the genResult once every answer is in.
func generate(in *os.File, out *os.File) error {
	var spec genSpec
	if err := json.NewDecoder(in).Decode(&spec); err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: maxOutstanding, DisableCompression: true}}
	ctx := context.Background()
	answers := make([]genAnswer, len(spec.Calls))
	var outstanding atomic.Int64
	var wg sync.WaitGroup
	res := genResult{}
	n := len(spec.Calls)
	start := time.Now()
	for i := range n {
		if wait := time.Until(start.Add(time.Duration(float64(i) / spec.Rate * float64(time.Second)))); wait > 0 {
			time.Sleep(wait)
		}
		if outstanding.Add(1) > maxOutstanding {
			res.Saturated, n = true, i
			break
		}
		wg.Go(func() {
			defer outstanding.Add(-1)
			c := spec.Calls[i]
			a := send(ctx, client, spec.URL, c.Token, c.Body, c.Key)
			answers[i] = genAnswer{Status: a.status, Code: a.code, RetryAfter: a.retryAfter, Latency: a.latency}
			if a.err != nil {
				answers[i].Err = a.err.Error()
			}
		})
	}
	res.Elapsed = time.Since(start)
	fmt.Fprintln(out, "stopped")
	wg.Wait()
	res.Answers = answers[:n]
	return json.NewEncoder(out).Encode(res)
}

// generator is a running generator process.
type generator struct {
	cmd    *exec.Cmd
	out    *bufio.Reader
	stderr bytes.Buffer
}

func startGenerator(spec genSpec) (*generator, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	g := &generator{cmd: exec.Command(os.Args[0], "-test.run=^$")}
	g.cmd.Env = append(os.Environ(), generatorEnv+"=1")
	g.cmd.Stdin = bytes.NewReader(b)
	g.cmd.Stderr = &g.stderr
	pipe, err := g.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := g.cmd.Start(); err != nil {
		return nil, err
	}
	g.out = bufio.NewReaderSize(pipe, 1<<20)
	return g, nil
}

// waitStopped waits for the last call to be sent and returns when.
func (g *generator) waitStopped() time.Time {
	g.out.ReadString('\n')
	return time.Now()
}

// result waits for every answer.
func (g *generator) result() (genResult, error) {
	var res genResult
	err := json.NewDecoder(g.out).Decode(&res)
	if werr := g.cmd.Wait(); err == nil && werr != nil {
		err = werr
	}
	if err != nil {
		return res, fmt.Errorf("the load generator: %v\n%s", err, g.stderr.String())
	}
	return res, nil
}
