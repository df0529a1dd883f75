package shop

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/safetext"
)

// Catalog is the product list of one catalog page.
type Catalog struct {
	Query    string           `json:"query,omitempty"`
	Count    int              `json:"count"`
	Page     int              `json:"page"`
	Pages    int              `json:"pages"`
	Products []ProductSummary `json:"products"`
}

// maxCatalogPages bounds the page number a URL may ask for, far above what
// the catalog holds, so that no arithmetic on it can overflow.
const maxCatalogPages = 100_000

func (a *App) catalogPage() {
	a.site.Page("/", site.PageOptions{
		CacheFor:    publicPageTTL, // stock in a proxy cache is at most this old
		Description: "The catalog: every product, with search (?q=) and pages (?page=)",
		View:        page("catalog.html"),
		Entities:    append(a.header(), site.Group(a.loadCatalog, catalogKey)),
	})
}

func (a *App) loadCatalog(r *site.Request, st *site.State) error {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	n := 1
	if p := r.URL.Query().Get("page"); p != "" {
		// A page number that is not one, or past the last page, names no
		// page: 404, rather than page 1 under another number.
		var err error
		if n, err = strconv.Atoi(p); err != nil || n < 1 || n > maxCatalogPages {
			return site.ErrNotFound
		}
	}
	products, count, err := a.store.Catalog(r.Context(), q, (n-1)*PageSize, PageSize)
	if err != nil {
		return err
	}
	pages := max(1, int(math.Ceil(float64(count)/PageSize)))
	if n > pages {
		return site.ErrNotFound
	}
	catalogKey.Set(st, Catalog{Query: q, Count: count, Page: n, Pages: pages, Products: products})
	for _, p := range products {
		st.Nav = append(st.Nav, protocol.Nav{To: "/products/" + p.Slug, Label: p.Name})
	}
	link := func(page int) string {
		v := []string{}
		if q != "" {
			v = append(v, "q="+urlQuery(q))
		}
		v = append(v, "page="+strconv.Itoa(page))
		return "/?" + strings.Join(v, "&")
	}
	if n < pages {
		st.Nav = append(st.Nav, protocol.Nav{To: link(n + 1), Label: "Next page", When: fmt.Sprintf("to see products %d to %d", n*PageSize+1, min(count, (n+1)*PageSize))})
	}
	if n > 1 {
		st.Nav = append(st.Nav, protocol.Nav{To: link(n - 1), Label: "Previous page"})
	}
	// The header's links, the same for everyone (the page is cached): an
	// agent that starts at / reaches every page without the site index.
	st.Nav = append(st.Nav, protocol.Nav{To: "/cart", Label: "Cart"}, protocol.Nav{To: "/orders", Label: "Orders"},
		protocol.Nav{To: "/account", Label: "Account"}, protocol.Nav{To: "/login", Label: "Sign in"})
	var md strings.Builder
	fmt.Fprintf(&md, "# Catalog\n\n")
	if q != "" {
		// The query is the visitor's text: escaped, it cannot become a
		// link, an image or HTML in a client that renders md.
		fmt.Fprintf(&md, "Search: %s. ", safetext.EscapeMarkdown(q))
	}
	fmt.Fprintf(&md, "%d products, page %d of %d.\n\n", count, n, pages)
	for _, p := range products {
		stock := ""
		if !p.InStock {
			stock = " (sold out)"
		}
		fmt.Fprintf(&md, "- [%s](/products/%s): %s%s\n", p.Name, p.Slug, p.Price, stock)
	}
	st.MD = md.String()
	return nil
}
