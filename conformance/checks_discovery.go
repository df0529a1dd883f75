package conformance

// The readiness.* checks of the discovery files: /llms.txt, the Agentic
// Resource Discovery catalog, and the MCP server card, held to the rules
// of their specifications as Lighthouse's Agentic Browsing audits apply
// them (llms-txt, ard-schema).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

var (
	llmsH1   = regexp.MustCompile(`(?m)^\s*#\s+.+`)
	llmsLink = regexp.MustCompile(`\[.+\]\(.+\)`)
	// airURN is an ARD identifier: urn:air:<publisher>:<namespace>:<name>.
	airURN = regexp.MustCompile(`^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$`)
)

// ardTypes are the entry types the ARD specification names.
var ardTypes = map[string]bool{
	"application/ai-catalog+json": true, "application/agent-card+json": true, "application/a2a-agent-card+json": true,
	"application/mcp-server-card+json": true, "application/agent-skills+zip": true, "application/agent-skills+gzip": true,
	`text/markdown; profile="urn:air:agent-skills"`: true, "application/ai-registry": true, "application/ai-registry+json": true,
}

// discoveryFile reads one of the site's discovery files; failed is the
// check's outcome when it could not be read or did not answer 200.
func (e *Env) discoveryFile(ctx context.Context, path string) (_ *response, failed *Outcome) {
	res, err := e.do(ctx, http.MethodGet, e.abs(path), nil)
	if err != nil {
		o := fail("%v", err)
		return nil, &o
	}
	if res.status != http.StatusOK {
		o := fail("%s: %d", path, res.status)
		return nil, &o
	}
	return res, nil
}

func checkReadyLLMsTxt(ctx context.Context, e *Env) Outcome {
	res, failed := e.discoveryFile(ctx, "/llms.txt")
	if failed != nil {
		return *failed
	}
	var problems []string
	body := string(res.body)
	if !llmsH1.MatchString(body) {
		problems = append(problems, "no H1 heading")
	}
	if !llmsLink.MatchString(body) {
		problems = append(problems, "no Markdown link")
	}
	if len(body) < 50 {
		problems = append(problems, "shorter than 50 bytes")
	}
	if len(problems) > 0 {
		return fail("/llms.txt: %s", strings.Join(problems, ", "))
	}
	return pass("%d bytes, with an H1 and links", len(body))
}

func checkReadyAICatalog(ctx context.Context, e *Env) Outcome {
	res, failed := e.discoveryFile(ctx, "/.well-known/ai-catalog.json")
	if failed != nil {
		return *failed
	}
	if problems := ardProblems(res.body); len(problems) > 0 {
		return fail("the AI catalog: %s", strings.Join(problems, "; "))
	}
	return pass("a valid AI catalog")
}

// ardProblems are what keeps a catalog from the ARD specification: its
// errors and the warnings that cost it a full score.
func ardProblems(body []byte) []string {
	var cat struct {
		SpecVersion *string           `json:"specVersion"`
		Entries     *[]map[string]any `json:"entries"`
		Collections any               `json:"collections"`
	}
	if err := json.Unmarshal(body, &cat); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	var out []string
	if cat.SpecVersion == nil || *cat.SpecVersion != "1.0" {
		out = append(out, `specVersion must be "1.0"`)
	}
	if cat.Collections != nil {
		out = append(out, "top-level collections were removed from the specification")
	}
	if cat.Entries == nil {
		return append(out, "no entries array")
	}
	for i, en := range *cat.Entries {
		label := fmt.Sprintf("entry %d", i)
		id, _ := en["identifier"].(string)
		if !airURN.MatchString(id) {
			out = append(out, label+": identifier must be urn:air:<publisher>:<namespace>:<name>")
		}
		if s, _ := en["displayName"].(string); s == "" {
			out = append(out, label+": no displayName")
		}
		if s, _ := en["type"].(string); !ardTypes[s] {
			out = append(out, label+": type "+fmt.Sprintf("%q", s)+" is not a discovery type")
		}
		_, hasURL := en["url"]
		_, hasData := en["data"]
		if hasURL == hasData {
			out = append(out, label+": exactly one of url and data")
		}
		q, _ := en["representativeQueries"].([]any)
		if len(q) < 2 || len(q) > 5 {
			out = append(out, label+": 2 to 5 representativeQueries")
		}
	}
	return out
}

func checkReadyServerCard(ctx context.Context, e *Env) Outcome {
	if e.index == nil || e.index.MCP == "" {
		return skip("the index lists no MCP endpoint")
	}
	res, failed := e.discoveryFile(ctx, "/.well-known/mcp/server-card.json")
	if failed != nil {
		return *failed
	}
	var card struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Remotes []struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		} `json:"remotes"`
	}
	if err := json.Unmarshal(res.body, &card); err != nil {
		return fail("the server card is not JSON: %v", err)
	}
	if card.Name == "" || card.Version == "" {
		return fail("the server card needs a name and a version")
	}
	want := e.abs(e.index.MCP)
	for _, r := range card.Remotes {
		if r.Type == "streamable-http" && r.URL == want {
			return pass("%s at %s", card.Name, r.URL)
		}
	}
	return fail("the server card names no streamable-http remote at %s", want)
}
