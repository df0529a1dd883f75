package shop

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
)

// approvalDetails is what an approval's page shows besides its summary,
// kept as JSON in one column.
type approvalDetails struct {
	SignedBy string            `json:"signedBy,omitempty"`
	Fields   []site.InputField `json:"fields,omitempty"`
	Why      string            `json:"why,omitempty"`
}

// Approvals keeps the approvals people give on the shop (see
// approval.Store) in the shop's database, so that any instance of the
// shop can check an approval another one issued.
type Approvals struct{ s *Store }

// Approvals returns the store's approvals.
func (s *Store) Approvals() *Approvals { return &Approvals{s} }

// Create implements approval.Store.
func (a *Approvals) Create(ctx context.Context, ap approval.Approval) error {
	details, err := json.Marshal(approvalDetails{SignedBy: ap.SignedBy, Fields: ap.Fields, Why: ap.Why})
	if err != nil {
		return fmt.Errorf("storing an approval: %w", err)
	}
	_, err = a.s.db.ExecContext(ctx, `INSERT INTO approvals (id, account, page, action, input, summary, basis, credential, agent, details, state, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ap.ID, ap.Account, ap.Page, ap.Action, ap.Input, ap.Summary, ap.Basis, ap.Credential, ap.Agent,
		string(details), string(ap.State), ap.Expires.UnixMilli())
	if err != nil {
		return fmt.Errorf("storing an approval: %w", err)
	}
	// Forget approvals a day past their expiry.
	_, err = a.s.db.ExecContext(ctx, `DELETE FROM approvals WHERE expires_at < ?`, a.s.now().Add(-24*time.Hour).UnixMilli())
	return err
}

// approvalColumns are the columns scanApproval reads, in its order.
const approvalColumns = `id, account, page, action, input, summary, basis, credential, agent, details, state, expires_at`

// scanApproval reads one row of approvalColumns.
func scanApproval(row interface{ Scan(...any) error }) (approval.Approval, error) {
	var ap approval.Approval
	var state, details string
	var expires int64
	err := row.Scan(&ap.ID, &ap.Account, &ap.Page, &ap.Action, &ap.Input, &ap.Summary, &ap.Basis, &ap.Credential, &ap.Agent, &details, &state, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return approval.Approval{}, approval.ErrNotFound
	}
	if err != nil {
		return approval.Approval{}, fmt.Errorf("reading an approval: %w", err)
	}
	ap.State, ap.Expires = approval.State(state), time.UnixMilli(expires)
	if details != "" {
		var d approvalDetails
		if err := json.Unmarshal([]byte(details), &d); err != nil {
			return approval.Approval{}, fmt.Errorf("reading an approval's details: %w", err)
		}
		ap.SignedBy, ap.Fields, ap.Why = d.SignedBy, d.Fields, d.Why
	}
	return ap, nil
}

// Get implements approval.Store.
func (a *Approvals) Get(ctx context.Context, id string) (approval.Approval, error) {
	return scanApproval(a.s.db.QueryRowContext(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE id = ?`, id))
}

// Pending implements approval.Reuser: the same call asked again before
// the person decided gets the same approval page.
func (a *Approvals) Pending(ctx context.Context, like approval.Approval, now time.Time) (approval.Approval, error) {
	var id string
	err := a.s.db.QueryRowContext(ctx, `SELECT id FROM approvals WHERE account = ? AND credential = ? AND page = ? AND action = ?
		AND input = ? AND summary = ? AND basis = ? AND state = ? AND expires_at > ? ORDER BY expires_at DESC LIMIT 1`,
		like.Account, like.Credential, like.Page, like.Action, like.Input, like.Summary, like.Basis, string(approval.Pending), now.UnixMilli()).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return approval.Approval{}, approval.ErrNotFound
	}
	if err != nil {
		return approval.Approval{}, fmt.Errorf("finding a pending approval: %w", err)
	}
	return a.Get(ctx, id)
}

// Recent implements approval.Lister: the account's approvals that expire
// after since, newest first (by approvals_by_account).
func (a *Approvals) Recent(ctx context.Context, account string, since time.Time, limit int) ([]approval.Approval, error) {
	rows, err := a.s.db.QueryContext(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE account = ? AND expires_at > ?
		ORDER BY expires_at DESC LIMIT ?`, account, since.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("listing approvals: %w", err)
	}
	defer rows.Close()
	var out []approval.Approval
	for rows.Next() {
		ap, err := scanApproval(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ap)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing approvals: %w", err)
	}
	return out, nil
}

// Decide implements approval.Store.
func (a *Approvals) Decide(ctx context.Context, id string, approve bool) error {
	to := approval.Declined
	if approve {
		to = approval.Approved
	}
	err := a.move(ctx, id, approval.Pending, to)
	if !approve && errors.Is(err, approval.ErrDecided) {
		err = a.move(ctx, id, approval.Approved, approval.Declined) // withdrawn before use
	}
	return err
}

// Use implements approval.Store.
func (a *Approvals) Use(ctx context.Context, id string) error {
	return a.move(ctx, id, approval.Approved, approval.Used)
}

// move changes an approval's state in one conditional UPDATE, so that two
// requests cannot both use it.
func (a *Approvals) move(ctx context.Context, id string, from, to approval.State) error {
	res, err := a.s.db.ExecContext(ctx, `UPDATE approvals SET state = ? WHERE id = ? AND state = ?`, string(to), id, string(from))
	if err != nil {
		return fmt.Errorf("changing an approval: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := a.Get(ctx, id); err != nil {
			return err
		}
		return approval.ErrDecided
	}
	return nil
}
