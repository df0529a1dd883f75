package botauth

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// signatureBase builds the signature base of RFC 9421 (section 2.5) for
// a request: one line per covered component, then the signature
// parameters.
func signatureBase(r *http.Request, items []string, ps params) ([]byte, error) {
	var b strings.Builder
	seen := map[string]bool{}
	for _, name := range items {
		if seen[name] {
			return nil, fmt.Errorf("the component %q is covered twice", name)
		}
		seen[name] = true
		v, err := componentValue(r, name)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("the component %q holds a line break", name)
		}
		b.WriteString(quote(name))
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(serializeParams(items, ps))
	return []byte(b.String()), nil
}

// componentValue is one component's value: a derived component (its
// name starts with @) or a header field (its values, each trimmed, joined
// with ", ").
func componentValue(r *http.Request, name string) (string, error) {
	switch name {
	case "@method":
		return strings.ToUpper(r.Method), nil
	case "@authority":
		return authority(r), nil
	case "@scheme":
		return scheme(r), nil
	case "@path":
		if p := r.URL.EscapedPath(); p != "" {
			return p, nil
		}
		return "/", nil
	case "@query":
		return "?" + r.URL.RawQuery, nil
	case "@request-target":
		return r.URL.RequestURI(), nil
	case "@target-uri":
		return scheme(r) + "://" + authority(r) + r.URL.RequestURI(), nil
	}
	if strings.HasPrefix(name, "@") {
		return "", fmt.Errorf("the component %q is not supported", name)
	}
	if name != strings.ToLower(name) {
		return "", fmt.Errorf("the component %q is not lowercase", name)
	}
	vs := r.Header.Values(name)
	if name == "host" && len(vs) == 0 && r.Host != "" {
		vs = []string{r.Host}
	}
	if len(vs) == 0 {
		return "", fmt.Errorf("the covered header %q is missing", name)
	}
	for i, v := range vs {
		vs[i] = strings.TrimSpace(v)
	}
	return strings.Join(vs, ", "), nil
}

// authority is the request's host, lowercase, without the default port
// of its scheme.
func authority(r *http.Request) string {
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	host = strings.ToLower(host)
	if h, port, err := net.SplitHostPort(host); err == nil {
		if (port == "443" && scheme(r) == "https") || (port == "80" && scheme(r) == "http") {
			if strings.Contains(h, ":") {
				return "[" + h + "]"
			}
			return h
		}
	}
	return host
}

func scheme(r *http.Request) string {
	if r.URL.Scheme != "" {
		return strings.ToLower(r.URL.Scheme)
	}
	if r.TLS != nil {
		return "https"
	}
	return "http"
}
