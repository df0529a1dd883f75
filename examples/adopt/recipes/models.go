package recipes

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"golang.org/x/crypto/bcrypt"
)

// Errors of the models, for handlers to tell apart.
var (
	ErrNoRecord           = errors.New("recipes: no matching record")
	ErrInvalidCredentials = errors.New("recipes: invalid credentials")
	ErrDuplicateEmail     = errors.New("recipes: duplicate email")
)

// Recipe is one recipe.
type Recipe struct {
	ID          int       `json:"id"`
	Title       string    `json:"title"`
	Ingredients string    `json:"ingredients"`
	Method      string    `json:"method"`
	Author      string    `json:"author"`
	Created     time.Time `json:"created"`
}

// Migrate creates the application's tables (MySQL or MariaDB).
func Migrate(ctx context.Context, db *sql.DB) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS users (
			id INTEGER NOT NULL PRIMARY KEY AUTO_INCREMENT,
			name VARCHAR(255) NOT NULL,
			email VARCHAR(255) NOT NULL,
			hashed_password CHAR(60) NOT NULL,
			created DATETIME NOT NULL,
			CONSTRAINT users_uc_email UNIQUE (email)
		) CHARACTER SET utf8mb4`,
		`CREATE TABLE IF NOT EXISTS recipes (
			id INTEGER NOT NULL PRIMARY KEY AUTO_INCREMENT,
			title VARCHAR(100) NOT NULL,
			ingredients TEXT NOT NULL,
			method TEXT NOT NULL,
			user_id INTEGER NOT NULL,
			created DATETIME NOT NULL,
			INDEX idx_recipes_created (created)
		) CHARACTER SET utf8mb4`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// InsertUser adds a user with a bcrypt hash of the password.
func (app *App) InsertUser(ctx context.Context, name, email, password string) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), 12)
	if err != nil {
		return err
	}
	_, err = app.DB.ExecContext(ctx, `INSERT INTO users (name, email, hashed_password, created) VALUES (?, ?, ?, UTC_TIMESTAMP())`,
		name, strings.ToLower(email), string(hash))
	var myErr *mysql.MySQLError
	if errors.As(err, &myErr) && myErr.Number == 1062 {
		return ErrDuplicateEmail
	}
	return err
}

// AuthenticateUser returns the id of the user with the email and password.
func (app *App) AuthenticateUser(ctx context.Context, email, password string) (int, error) {
	var id int
	var hash []byte
	err := app.DB.QueryRowContext(ctx, `SELECT id, hashed_password FROM users WHERE email = ?`, strings.ToLower(email)).Scan(&id, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrInvalidCredentials
	}
	if err != nil {
		return 0, err
	}
	if err := bcrypt.CompareHashAndPassword(hash, []byte(password)); err != nil {
		if errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
			return 0, ErrInvalidCredentials
		}
		return 0, err
	}
	return id, nil
}

func (app *App) userExists(ctx context.Context, id int) (bool, error) {
	var ok bool
	err := app.DB.QueryRowContext(ctx, `SELECT EXISTS(SELECT true FROM users WHERE id = ?)`, id).Scan(&ok)
	return ok, err
}

// InsertRecipe adds a recipe by a user and returns its id.
func (app *App) InsertRecipe(ctx context.Context, userID int, title, ingredients, method string) (int, error) {
	res, err := app.DB.ExecContext(ctx, `INSERT INTO recipes (title, ingredients, method, user_id, created) VALUES (?, ?, ?, ?, UTC_TIMESTAMP())`,
		title, ingredients, method, userID)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	return int(id), err
}

const recipeColumns = `r.id, r.title, r.ingredients, r.method, u.name, UNIX_TIMESTAMP(r.created)`

func scanRecipe(scan func(...any) error) (Recipe, error) {
	var r Recipe
	var created int64
	err := scan(&r.ID, &r.Title, &r.Ingredients, &r.Method, &r.Author, &created)
	r.Created = time.Unix(created, 0).UTC()
	return r, err
}

// GetRecipe returns a recipe by its id.
func (app *App) GetRecipe(ctx context.Context, id int) (Recipe, error) {
	r, err := scanRecipe(app.DB.QueryRowContext(ctx, `SELECT `+recipeColumns+` FROM recipes r JOIN users u ON u.id = r.user_id WHERE r.id = ?`, id).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return Recipe{}, ErrNoRecord
	}
	return r, err
}

// LatestRecipes returns the ten newest recipes.
func (app *App) LatestRecipes(ctx context.Context) ([]Recipe, error) {
	rows, err := app.DB.QueryContext(ctx, `SELECT `+recipeColumns+` FROM recipes r JOIN users u ON u.id = r.user_id ORDER BY r.id DESC LIMIT 10`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Recipe{}
	for rows.Next() {
		r, err := scanRecipe(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
