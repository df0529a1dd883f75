package shop

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
)

// robots.txt and the sitemap: what crawlers and agent-readiness scanners
// look for. The catalogue and the product pages are public; the pages of
// a signed-in person are not worth a crawler's visit.

// publicOrigin is the scheme and host the store's public URLs are
// written with: its first configured Origin, else the request's own.
func (a *App) publicOrigin(r *http.Request) string {
	if len(a.origins) > 0 {
		return strings.TrimSuffix(a.origins[0], "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (a *App) robots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	fmt.Fprintf(w, "User-agent: *\nAllow: /\nDisallow: /account\nDisallow: /cart\nDisallow: /checkout\nDisallow: /orders\nDisallow: /approvals/\n\nSitemap: %s/sitemap.xml\n%s", a.publicOrigin(r), a.site.RobotsLines(r))
}

// sitemap lists the catalogue and every product page.
func (a *App) sitemap(w http.ResponseWriter, r *http.Request) {
	type loc struct {
		Loc string `xml:"loc"`
	}
	set := struct {
		XMLName xml.Name `xml:"urlset"`
		NS      string   `xml:"xmlns,attr"`
		URLs    []loc    `xml:"url"`
	}{NS: "http://www.sitemaps.org/schemas/sitemap/0.9"}
	origin := a.publicOrigin(r)
	set.URLs = append(set.URLs, loc{origin + "/"})
	for offset := 0; ; offset += 100 {
		products, total, err := a.store.Catalog(r.Context(), "", offset, 100)
		if err != nil {
			a.log.ErrorContext(r.Context(), "shop: the sitemap's products", "err", err)
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
			return
		}
		for _, p := range products {
			set.URLs = append(set.URLs, loc{origin + "/products/" + p.Slug})
		}
		if offset+100 >= total {
			break
		}
	}
	b, _ := xml.MarshalIndent(set, "", "  ")
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=600")
	w.Write([]byte(xml.Header))
	w.Write(b)
}
