package tasks

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// What a script understands of the store's entities: the fields it reads.
type (
	money struct {
		Amount   int64  `json:"amount"`
		Currency string `json:"currency"`
	}
	catalog struct {
		Pages    int `json:"pages"`
		Products []struct {
			Slug    string `json:"slug"`
			Name    string `json:"name"`
			Price   money  `json:"price"`
			InStock bool   `json:"inStock"`
		} `json:"products"`
	}
	product struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Price       money  `json:"price"`
		Variants    []struct {
			SKU    string `json:"sku"`
			Colour string `json:"colour"`
			Size   string `json:"size"`
			Stock  int    `json:"stock"`
		} `json:"variants"`
	}
	cart struct {
		Lines []struct {
			SKU     string `json:"sku"`
			Product string `json:"product"`
			Colour  string `json:"colour"`
			Size    string `json:"size"`
			Qty     int    `json:"qty"`
		} `json:"lines"`
		Count int   `json:"count"`
		Total money `json:"total"`
	}
	orderSummary struct {
		ID     int64  `json:"id"`
		Status string `json:"status"`
		Total  money  `json:"total"`
	}
	order struct {
		ID     int64  `json:"id"`
		Status string `json:"status"`
		Total  money  `json:"total"`
		Items  []struct {
			SKU     string `json:"sku"`
			Product string `json:"product"`
			Qty     int    `json:"qty"`
		} `json:"items"`
	}
	address struct {
		Name     string `json:"name"`
		Street   string `json:"street"`
		Postcode string `json:"postcode"`
		City     string `json:"city"`
		Country  string `json:"country"`
	}
)

func (m money) String() string {
	return fmt.Sprintf("%d.%02d %s", m.Amount/100, m.Amount%100, m.Currency)
}

// catalogPages reads the catalog page by page, from /, until stop says
// enough (or the last page); it returns the products seen.
func catalogPages(ctx context.Context, s *Scout, query string, stop func(catalog) bool) (catalog, error) {
	var all catalog
	page := "/"
	if query != "" {
		page = "/?q=" + url.QueryEscape(query)
	}
	for {
		g, err := s.Seen(ctx, page)
		if err != nil {
			return all, err
		}
		var c catalog
		if err := Entity(g, "catalog", &c); err != nil {
			return all, err
		}
		all.Products = append(all.Products, c.Products...)
		if stop != nil && stop(all) {
			return all, nil
		}
		next := navTo(g, "Next page")
		if next == "" {
			return all, nil
		}
		page = next
	}
}

// findProduct finds a product's page by its name: by a search when the
// path told the agent the catalog has one, else page by page from /.
func findProduct(ctx context.Context, s *Scout, name string) (string, *protocol.Graph, product, error) {
	// A link to it on a page read already is the way there.
	for _, p := range s.order {
		if to := navTo(s.pages[p], name); strings.HasPrefix(to, "/products/") {
			g, err := s.Seen(ctx, to)
			if err != nil {
				return "", nil, product{}, err
			}
			var pr product
			err = Entity(g, "product", &pr)
			return to, g, pr, err
		}
	}
	query := ""
	if s.A.Searchable() {
		query = name
	}
	var slug string
	_, err := catalogPages(ctx, s, query, func(c catalog) bool {
		for _, p := range c.Products {
			if strings.EqualFold(p.Name, name) {
				slug = p.Slug
				return true
			}
		}
		return false
	})
	if err != nil {
		return "", nil, product{}, err
	}
	if slug == "" {
		return "", nil, product{}, fmt.Errorf("no product called %s", name)
	}
	// The link to it is in the catalog page's nav; its label is the name.
	page := ""
	for _, p := range s.order {
		if to := navTo(s.pages[p], name); to != "" {
			page = to
		}
	}
	if page == "" {
		return "", nil, product{}, fmt.Errorf("no link to %s", name)
	}
	g, err := s.Seen(ctx, page)
	if err != nil {
		return "", nil, product{}, err
	}
	var p product
	err = Entity(g, "product", &p)
	return page, g, p, err
}

// variant finds a product's SKU in a colour and size.
func variant(p product, colour, size string) (sku string, stock int, err error) {
	for _, v := range p.Variants {
		if strings.EqualFold(v.Colour, colour) && strings.EqualFold(v.Size, size) {
			return v.SKU, v.Stock, nil
		}
	}
	return "", 0, fmt.Errorf("%s comes in no %s %s", p.Name, colour, size)
}

// add puts qty of a product's colour and size in the cart.
func add(ctx context.Context, s *Scout, name, colour, size string, qty int) error {
	page, _, p, err := findProduct(ctx, s, name)
	if err != nil {
		return err
	}
	sku, _, err := variant(p, colour, size)
	if err != nil {
		return err
	}
	in := map[string]any{"sku": sku}
	if qty != 1 {
		in["qty"] = qty
	}
	_, err = s.Call(ctx, page, "addToCart", in)
	return err
}

// placeOrder orders the cart, with an input (nil: the saved address).
func placeOrder(ctx context.Context, s *Scout, in any) (*protocol.Delta, error) {
	page, err := s.PageOf(ctx, "placeOrder")
	if err != nil {
		return nil, err
	}
	return s.Call(ctx, page, "placeOrder", in)
}

// readCart reads the cart's page (where its lines are changed).
func readCart(ctx context.Context, s *Scout) (string, cart, error) {
	page, err := s.PageOf(ctx, "setQuantity")
	if err != nil {
		return "", cart{}, err
	}
	g, err := s.Read(ctx, page)
	if err != nil {
		return "", cart{}, err
	}
	var c cart
	err = Entity(g, "cart", &c)
	return page, c, err
}

// cartSKU finds the SKU of a cart line by its product's name.
func cartSKU(c cart, product string) (string, error) {
	for _, l := range c.Lines {
		if strings.EqualFold(l.Product, product) {
			return l.SKU, nil
		}
	}
	return "", fmt.Errorf("no %s in the cart", product)
}

// readOrders reads the list of the person's orders, newest first.
func readOrders(ctx context.Context, s *Scout) ([]orderSummary, *protocol.Graph, error) {
	page, err := s.PageNamed(ctx, "Orders")
	if err != nil {
		return nil, nil, err
	}
	g, err := s.Seen(ctx, page)
	if err != nil {
		return nil, nil, err
	}
	var os []orderSummary
	err = Entity(g, "orders", &os)
	return os, g, err
}

// lastOrder reads the page of the person's newest order, found by the
// orders list's link to it.
func lastOrder(ctx context.Context, s *Scout) (string, *protocol.Graph, order, error) {
	os, g, err := readOrders(ctx, s)
	if err != nil {
		return "", nil, order{}, err
	}
	if len(os) == 0 {
		return "", nil, order{}, fmt.Errorf("no order yet")
	}
	page := ""
	for _, n := range g.Nav {
		if strings.HasSuffix(n.To, fmt.Sprintf("/%d", os[0].ID)) {
			page = n.To
		}
	}
	if page == "" {
		return "", nil, order{}, fmt.Errorf("no link to order %d", os[0].ID)
	}
	og, err := s.Read(ctx, page)
	if err != nil {
		return "", nil, order{}, err
	}
	var o order
	err = Entity(og, "order", &o)
	return page, og, o, err
}

// unavailable is the answer of a task whose action cannot run: the
// action's reason as the page gives it, without calling it.
func unavailable(g *protocol.Graph, action string) (string, error) {
	a, ok := ActionOf(g, action)
	if !ok {
		return "", fmt.Errorf("%s has no %s", g.Page, action)
	}
	if a.Available {
		return "", fmt.Errorf("%s is available on %s", action, g.Page)
	}
	return "Not possible: " + a.Reason, nil
}
