package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/safetext"
)

// Address is where an order is delivered. It is placeOrder's optional
// input, an account's saved address, and part of an order. Its schema
// says no more than an agent needs to fill it (every keyword costs
// tokens in each graph and delta that lists placeOrder): the names speak
// for themselves, and the two fields with a pattern carry an example.
type Address struct {
	Name     string `json:"name" minLength:"1" maxLength:"100"`
	Street   string `json:"street" minLength:"1" maxLength:"200"`
	Postcode string `json:"postcode" pattern:"^[A-Za-z0-9][A-Za-z0-9 -]{1,9}$" example:"75004"`
	City     string `json:"city" minLength:"1" maxLength:"100"`
	Country  string `json:"country" title:"Country" description:"ISO 3166 code" pattern:"^[A-Z]{2}$" example:"FR"`
}

// String writes the address on one line, as a summary shows it.
func (a Address) String() string {
	return fmt.Sprintf("%s, %s, %s %s, %s", a.Name, a.Street, a.Postcode, a.City, a.Country)
}

// Lines writes the address for a summary a person approves as it goes on
// a parcel: name, street, postcode and city, one line each, then the
// country's name. Each value is quoted and escaped (safetext.Quote): it
// cannot end its quotes, start a line or pass for the site's own text
// ("Total: 0.00 EUR"), in plain text or rendered as Markdown.
func (a Address) Lines() string {
	a = a.trimmed()
	q := safetext.Quote
	return q(a.Name) + "\n" + q(a.Street) + "\n" + q(a.Postcode+" "+a.City) + "\n" + safetext.EscapeMarkdown(countryName(a.Country))
}

// Validate refuses what the schema cannot say: a field that is only
// spaces, and control characters or bidirectional overrides anywhere
// (they could change what the person reads when approving).
func (a Address) Validate() error {
	var errs []error
	for _, f := range []struct{ name, value string }{
		{"name", a.Name}, {"street", a.Street}, {"postcode", a.Postcode}, {"city", a.City}, {"country", a.Country},
	} {
		switch {
		case safetext.HasUnsafe(f.value):
			errs = append(errs, site.Invalid("/address/"+f.name, "must not contain control characters"))
		case strings.TrimSpace(f.value) == "":
			errs = append(errs, site.Invalid("/address/"+f.name, "must not be only spaces"))
		}
	}
	return errors.Join(errs...)
}

// trimmed is the address with the spaces around each field removed.
func (a Address) trimmed() Address {
	t := strings.TrimSpace
	return Address{Name: t(a.Name), Street: t(a.Street), Postcode: t(a.Postcode), City: t(a.City), Country: t(a.Country)}
}

// SavedAddress returns the user's saved address, or nil when they have
// none.
func (s *Store) SavedAddress(ctx context.Context, userID int64) (*Address, error) {
	var a Address
	err := s.db.QueryRowContext(ctx, `SELECT name, street, postcode, city, country FROM addresses WHERE user_id = ?`, userID).
		Scan(&a.Name, &a.Street, &a.Postcode, &a.City, &a.Country)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the saved address: %w", err)
	}
	return &a, nil
}

// SaveAddress keeps a as the user's address for their next orders.
func (s *Store) SaveAddress(ctx context.Context, userID int64, a Address) error {
	return saveAddress(ctx, s.db, userID, a)
}

func saveAddress(ctx context.Context, q querier, userID int64, a Address) error {
	a = a.trimmed()
	_, err := q.ExecContext(ctx, `INSERT INTO addresses (user_id, name, street, postcode, city, country) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, street = excluded.street, postcode = excluded.postcode,
		city = excluded.city, country = excluded.country`, userID, a.Name, a.Street, a.Postcode, a.City, a.Country)
	if err != nil {
		return fmt.Errorf("saving the address: %w", err)
	}
	return nil
}

// orderAddress reads the address an order was sent to, or nil for an
// order placed before addresses existed.
func orderAddress(ctx context.Context, q querier, orderID int64) (*Address, error) {
	var a Address
	err := q.QueryRowContext(ctx, `SELECT name, street, postcode, city, country FROM order_addresses WHERE order_id = ?`, orderID).
		Scan(&a.Name, &a.Street, &a.Postcode, &a.City, &a.Country)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the address of order %d: %w", orderID, err)
	}
	return &a, nil
}
