package recipes

import "context"

// Login starts a signed-in session for the user: a new session token
// (against session fixation), then the user's id.
func (app *App) Login(ctx context.Context, userID int) error {
	if err := app.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	app.Sessions.Put(ctx, "authenticatedUserID", userID)
	return nil
}

// Logout ends the signed-in session, keeping the session itself.
func (app *App) Logout(ctx context.Context) error {
	if err := app.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	app.Sessions.Remove(ctx, "authenticatedUserID")
	return nil
}
