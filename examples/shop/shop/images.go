package shop

import (
	"errors"
	"fmt"
	"html"
	"net/http"
	"strings"
)

// The store's product images are drawn here, one SVG per product and
// colour, so that every product looks like itself without image files or
// JavaScript: a silhouette of its kind, in its colour.

// shapes are the silhouettes by kind of product, in a 120 × 90 box: a
// filled outline and, for some, details drawn as lines.
var shapes = map[string]struct{ fill, lines string }{
	"tee":      {"M40 15 L52 10 Q60 18 68 10 L80 15 L98 30 L88 42 L80 36 L80 80 L40 80 L40 36 L32 42 L22 30 Z", ""},
	"shirt":    {"M40 15 L52 10 L60 20 L68 10 L80 15 L95 62 L85 64 L80 38 L80 80 L40 80 L40 38 L35 64 L25 62 Z", "M60 20 L60 80"},
	"hoodie":   {"M40 18 Q44 4 60 4 Q76 4 80 18 L95 62 L85 64 L80 38 L80 80 L40 80 L40 38 L35 64 L25 62 Z", "M50 60 L70 60 L70 72 L50 72 Z"},
	"jacket":   {"M40 15 L52 10 L60 22 L68 10 L80 15 L95 62 L85 64 L80 38 L80 80 L40 80 L40 38 L35 64 L25 62 Z", "M60 22 L60 80 M45 50 L55 50 L55 60 L45 60 Z M65 50 L75 50 L75 60 L65 60 Z"},
	"shell":    {"M40 18 Q44 4 60 4 Q76 4 80 18 L95 62 L85 64 L80 38 L80 80 L40 80 L40 38 L35 64 L25 62 Z", "M60 12 L60 80"},
	"trousers": {"M42 10 L78 10 L84 82 L66 82 L60 36 L54 82 L36 82 Z", "M44 30 L52 30 M68 30 L76 30"},
	"tote":     {"M35 35 L85 35 L88 82 L32 82 Z", "M48 35 Q48 12 60 12 Q72 12 72 35"},
	"beanie":   {"M34 62 Q34 22 60 22 Q86 22 86 62 Z", "M34 54 L86 54"},
	"cap":      {"M30 55 Q32 25 60 25 Q88 25 88 55 Z M60 55 L102 58 L102 63 L60 61 Z", "M60 25 L60 55"},
	"socks":    {"M50 10 L66 10 L66 55 L82 66 Q90 74 80 80 L60 80 Q46 80 50 64 Z", "M50 18 L66 18"},
	"scarf":    {"M28 20 L92 20 L92 32 L64 32 L64 82 L52 82 L52 32 L28 32 Z", "M54 76 L54 86 M58 76 L58 86 M62 76 L62 86"},
	"belt":     {"M12 40 L108 40 L108 52 L12 52 Z", "M22 36 L36 36 L36 56 L22 56 Z"},
	"mug":      {"M38 25 L76 25 L76 78 L38 78 Z", "M76 36 Q94 36 94 51 Q94 66 76 66"},
	"notebook": {"M40 12 L82 12 L82 80 L40 80 Z", "M74 12 L74 80"},
}

// colours are the swatches of the catalog's colour names.
var colours = map[string]string{
	"Black": "#242422", "White": "#f6f5f0", "Olive": "#6b6b3a", "Grey": "#9a9a96", "Navy": "#1f2d4d",
	"Natural": "#e8dcc0", "Charcoal": "#3d3d3b", "Rust": "#a8502a", "Indigo": "#2e3a6e", "Khaki": "#b7a57a",
	"Sand": "#d8c8a0", "Sky": "#8fb8d8", "Stone": "#cfc6b4", "Yellow": "#e8c428", "Oat": "#dcd0b0",
	"Forest": "#2f4f3a", "Brown": "#6b4423", "Kraft": "#b08d5a",
}

// productImage answers GET /images/{slug}.svg (the product in its first
// colour) and /images/{slug}/{colour}.svg. A product or colour the store
// does not sell is the shop's 404.
func (a *App) productImage(w http.ResponseWriter, r *http.Request) {
	slug := strings.TrimSuffix(r.PathValue("slug"), ".svg")
	colour := strings.TrimSuffix(r.PathValue("colour"), ".svg")
	p, err := a.store.Product(r.Context(), slug)
	if errors.Is(err, ErrNotFound) || (err == nil && !hasColour(p, colour)) {
		a.notFound(w, r)
		return
	}
	if err != nil {
		a.log.ErrorContext(r.Context(), "shop: reading a product for its image", "slug", slug, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	if colour == "" && len(p.Variants) > 0 {
		colour = p.Variants[0].Colour
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	fmt.Fprint(w, productSVG(p, colour))
}

func hasColour(p *Product, colour string) bool {
	if colour == "" {
		return true
	}
	for _, v := range p.Variants {
		if v.Colour == colour {
			return true
		}
	}
	return false
}

// kindOf is the silhouette of a product: the last word of its slug
// (heavyweight-tee is a tee), else a tee.
func kindOf(slug string) string {
	k := slug[strings.LastIndex(slug, "-")+1:]
	if _, ok := shapes[k]; ok {
		return k
	}
	return "tee"
}

// productSVG draws the product in the colour, with its name as the
// image's title for assistive technology.
func productSVG(p *Product, colour string) string {
	s := shapes[kindOf(p.Slug)]
	fill, ok := colours[colour]
	if !ok {
		fill = "#b9c4bc"
	}
	title := html.EscapeString(p.Name + " in " + colour)
	lines := ""
	if s.lines != "" {
		lines = fmt.Sprintf(`<path d="%s" fill="none" stroke="#1d1d1b" stroke-opacity=".45" stroke-width="1.5"/>`, s.lines)
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 90" role="img" aria-label="%s"><title>%s</title>`+
		`<rect width="120" height="90" fill="#efebe2"/><path d="%s" fill="%s" stroke="#1d1d1b" stroke-width="1.5" stroke-linejoin="round"/>%s</svg>`,
		title, title, s.fill, fill, lines)
}

// imageColour is the colour a product page shows: the one of the SKU the
// person chose, else the first.
// colourChoice is one colour of a product, for the links that choose it.
type colourChoice struct {
	Name    string
	InStock bool
}

// colourChoices lists a product's colours in order, with whether any
// size is in stock.
func colourChoices(p *Product) []colourChoice {
	var out []colourChoice
	at := map[string]int{}
	for _, v := range p.Variants {
		i, ok := at[v.Colour]
		if !ok {
			at[v.Colour] = len(out)
			out = append(out, colourChoice{Name: v.Colour})
			i = len(out) - 1
		}
		out[i].InStock = out[i].InStock || v.Stock > 0
	}
	return out
}

// chosenSKU is the variant the product page starts on: the one a form
// sent back, else the first in stock of the colour chosen by a colour
// link (?colour=White), else none.
func chosenSKU(p *Product, formSKU, colour string) string {
	if formSKU != "" {
		return formSKU
	}
	for _, v := range p.Variants {
		if strings.EqualFold(v.Colour, colour) && v.Stock > 0 {
			return v.SKU
		}
	}
	return ""
}

// imageColour is the colour the product's picture shows: the chosen
// variant's, else the first.
func imageColour(p *Product, sku string) string {
	for _, v := range p.Variants {
		if v.SKU == sku {
			return v.Colour
		}
	}
	if len(p.Variants) > 0 {
		return p.Variants[0].Colour
	}
	return ""
}
