package approval

import "html/template"

// DefaultView is the approval page of a site that sets no view of its
// own: plain, readable on a phone, the decision in two large buttons.
var DefaultView = template.Must(template.New("approval").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Heading}}</title>
<style>
body { margin: 0; font: 17px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1b; background: #f6f5f1; }
main { max-width: 34rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 .75rem; }
.who { color: #55524b; margin: 0 0 1rem; }
.summary { white-space: pre-line; background: #fff; border: 1px solid #d9d5cc; border-radius: 10px; padding: 1rem 1.1rem; margin: 0 0 1rem; }
.when { color: #55524b; font-size: .95rem; }
.decide { display: flex; flex-direction: column; gap: .75rem; margin: 1.25rem 0; }
.decide button { font: inherit; font-weight: 600; min-height: 3.25rem; border-radius: 10px; cursor: pointer; }
.approve { background: #2f5d50; color: #fff; border: 2px solid #2f5d50; }
.decline { background: #fff; color: #9b2c1f; border: 2px solid #9b2c1f; }
@media (min-width: 32rem) { .decide { flex-direction: row-reverse; justify-content: flex-start; } .decide button { flex: 1; } }
a { color: #2f5d50; }
.input { background: #fff; border: 1px solid #d9d5cc; border-radius: 10px; padding: .6rem 1.1rem; margin: 0 0 1rem; }
.input div { display: flex; flex-wrap: wrap; gap: 0 .75rem; padding: .3rem 0; border-top: 1px solid #eeebe4; }
.input div:first-child { border-top: 0; }
.input dt { color: #55524b; min-width: 9rem; }
.input dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.why, .presence { color: #55524b; font-size: .95rem; }
</style>
{{.Scripts}}
</head>
<body>
<main>
{{if .OtherAccount}}<h1>This request is for another account</h1>
<p>You are signed in, but not to the account this request was made for. Nothing of it is shown here.</p>
{{with .SignInURL}}<p><a href="{{.}}">Sign in to the other account</a>, and you come back to this page.</p>{{end}}
{{else if not .SignedIn}}<h1>Sign in to answer an agent's request</h1>
<p>An agent acting for you asked for your approval. Only you, signed in on this site, can give it.</p>
{{with .SignInURL}}<p><a href="{{.}}">Sign in</a>, and you come back to this page.</p>{{end}}
{{else if .Newer}}<h1>{{.Heading}}</h1>
<p class="summary">{{.Approval.Summary}}</p>
<p>What this request was for changed before it ran, so it will not run. The agent asked again about what is there now: <a href="{{.Newer.ID}}">open the new request</a>.</p>
{{else if .Done}}<h1>{{if eq .Approval.State "approved"}}Approved{{else if eq .Approval.State "declined"}}Declined: nothing will happen{{else}}Already decided{{end}}</h1>
<p class="summary">{{.Approval.Summary}}</p>
<p>{{if eq .Approval.State "approved"}}The agent can now do this, once. You can withdraw your approval here until it is used.{{else}}Nothing will run.{{end}}</p>
{{else}}<h1>{{.Title}}?</h1>
<p class="who">Asked by {{.Agent}}, acting for you:</p>
<p class="summary">{{.Approval.Summary}}</p>
{{with .Approval.Why}}<p class="why">Why you are asked: {{.}}.</p>{{end}}
{{with .Approval.Fields}}<p>Everything the agent sent:</p>
<dl class="input">{{range .}}<div><dt>{{.Label}}</dt><dd>{{.Value}}</dd></div>{{end}}</dl>{{end}}
{{if .Expired}}<p><strong>This request expired.</strong> Nothing will run; the agent can ask again.</p>
{{else if eq .Approval.State "pending"}}{{with .PresenceError}}<p role="alert"><strong>{{.}}</strong></p>{{end}}
{{if .Presence}}<script type="application/json" id="affordances-presence-ask">{{.PresenceAsk}}</script>{{end}}
<form method="post" class="decide"{{if .Presence}} data-presence data-presence-options="affordances-presence-ask"{{end}}>
{{if .Presence}}<input type="hidden" name="_presence" value="">{{end}}
<button type="submit" name="_decision" value="approve" class="approve">Approve</button>
<button type="submit" name="_decision" value="decline" class="decline" data-no-presence>Decline</button>
</form>
<p class="when">This request expires {{.ExpiresIn}} ({{.Approval.Expires.UTC.Format "15:04 UTC"}}). If you did not expect it, decline.</p>
{{if .Presence}}<p class="presence">Your passkey confirms your approval: an agent running in this browser cannot give it for you.</p>
{{else}}<p class="presence">An agent running in this browser could press this button for you: approve only what you read here yourself.{{with .PasskeysURL}} <a href="{{.}}">Add a passkey</a>, and only you can approve.{{end}}</p>{{end}}
{{else if eq .Approval.State "approved"}}<p>You approved this request; the agent has not used it yet.</p>
<form method="post" class="decide"><button type="submit" name="_decision" value="decline" class="decline">Withdraw my approval</button></form>
{{else if eq .Approval.State "used"}}<p>You approved this request, and the agent did it.</p>
{{else}}<p>You declined this request. Nothing ran.</p>{{end}}
{{end}}</main>
</body>
</html>
`))
