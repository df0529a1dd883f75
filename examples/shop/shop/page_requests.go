package shop

import (
	"slices"
	"strings"
	"time"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
)

// approvalPath is where approval pages are (approval.Mount's default).
const approvalPath = "/approvals/"

// requestsKey is the person's agents' requests of the last day, on the
// account page the person sees (never in a graph).
var requestsKey = site.NewKey[[]AgentRequest]("requests")

// AgentRequest is one request an agent made for the person, as the
// account page lists it: what it asked, where it stands in words, and the
// page where the person answers or sees it.
type AgentRequest struct {
	URL   string `json:"url"`
	What  string `json:"what"`
	Agent string `json:"agent"`
	// State says where it stands, in words ("waiting for you", "done").
	State string `json:"state"`
	// Waiting is set while the person can still answer it.
	Waiting bool `json:"waiting,omitempty"`
	// Until is when a waiting request expires.
	Until time.Time `json:"until,omitzero"`
}

// loadRequests lists the person's agents' requests of the last day,
// those waiting for an answer first, for the person's own view of the
// account page only: an agent reading the page (or a script fetching it)
// gets none.
func (a *App) loadRequests(r *site.Request, st *site.State) error {
	sh := shopperOf(r)
	if sh.User == nil || r.Actor() != site.ActorPerson || !a.approvals {
		return nil
	}
	now := a.store.now()
	list, err := a.store.Approvals().Recent(r.Context(), r.Caller.AccountID(), now.Add(-24*time.Hour), 20)
	if err != nil {
		return err
	}
	out := make([]AgentRequest, 0, len(list))
	for i, ap := range list {
		what, _, _ := strings.Cut(ap.Summary, "\n")
		agent := ap.Agent
		if agent == "" {
			agent = "an agent"
		}
		q := AgentRequest{URL: approvalPath + ap.ID, What: what, Agent: agent}
		switch {
		case ap.State == approval.Used:
			q.State = "done"
		case ap.State == approval.Declined:
			q.State = "declined"
		case !now.Before(ap.Expires):
			q.State = "expired, not used"
		case slices.ContainsFunc(list[:i], func(n approval.Approval) bool { return n.Supersedes(ap, now) }):
			q.State = "out of date: your agent asked again"
		case ap.State == approval.Approved:
			q.State = "approved, not used yet"
		default:
			q.State, q.Waiting, q.Until = "waiting for you", true, ap.Expires
		}
		out = append(out, q)
	}
	// Those waiting for the person first, each part newest first.
	slices.SortStableFunc(out, func(x, y AgentRequest) int {
		switch {
		case x.Waiting == y.Waiting:
			return 0
		case x.Waiting:
			return -1
		}
		return 1
	})
	requestsKey.Set(st, out)
	return nil
}
