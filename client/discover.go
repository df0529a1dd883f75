package client

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// Discover finds the graph a page advertises and reads it. pageURL may be
// any page of the site, such as the URL a person has open: the client asks
// for HTML, looks for the Link header with rel="affordances" or the
// <link rel="affordances"> element, and follows it.
func (c *Client) Discover(ctx context.Context, pageURL string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return "", fmt.Errorf("affordances: %w", err)
	}
	req.Header.Set("Accept", "text/html")
	res, body, err := c.send(req)
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("affordances: GET %s: %s", pageURL, res.Status)
	}
	href := linkHeader(res.Header.Values("Link"))
	if href == "" {
		href = linkElement(string(body))
	}
	if href == "" {
		return "", fmt.Errorf("affordances: %s advertises no Affordances graph", pageURL)
	}
	return resolve(res.Request.URL.String(), href)
}

// DiscoverGraph is Discover followed by Graph.
func (c *Client) DiscoverGraph(ctx context.Context, pageURL string) (*protocol.Graph, error) {
	u, err := c.Discover(ctx, pageURL)
	if err != nil {
		return nil, err
	}
	return c.Graph(ctx, u)
}

// linkHeader finds the target of rel="affordances" in Link headers.
func linkHeader(values []string) string {
	for _, v := range values {
		for _, link := range splitLinks(v) {
			start, end := strings.IndexByte(link, '<'), strings.IndexByte(link, '>')
			if start < 0 || end < start {
				continue
			}
			for _, param := range strings.Split(link[end+1:], ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(param), "=")
				if strings.EqualFold(k, "rel") && hasToken(strings.Trim(val, `"`), "affordances") {
					return link[start+1 : end]
				}
			}
		}
	}
	return ""
}

// splitLinks splits a Link header at the commas between links (not those
// inside <…> or quotes).
func splitLinks(v string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i, r := range v {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '<' && !quoted:
			depth++
		case r == '>' && !quoted:
			depth--
		case r == ',' && !quoted && depth == 0:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

func hasToken(list, token string) bool {
	for _, t := range strings.Fields(list) {
		if strings.EqualFold(t, token) {
			return true
		}
	}
	return false
}

var (
	linkTag  = regexp.MustCompile(`(?is)<link\b([^>]*)>`)
	attrPair = regexp.MustCompile(`(?is)([a-z][a-z0-9_:-]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)`)
)

// linkElement finds the href of <link rel="affordances"> in an HTML page.
func linkElement(html string) string {
	for _, m := range linkTag.FindAllStringSubmatch(html, -1) {
		var rel, href string
		for _, a := range attrPair.FindAllStringSubmatch(m[1], -1) {
			v := strings.Trim(a[2], `"'`)
			switch strings.ToLower(a[1]) {
			case "rel":
				rel = v
			case "href":
				href = strings.ReplaceAll(v, "&amp;", "&")
			}
		}
		if hasToken(rel, "affordances") && href != "" {
			return href
		}
	}
	return ""
}
