package console

import (
	"net/url"

	"github.com/gofiber/fiber/v2"
)

// Setting is one line of the effective configuration as `tandem config`
// prints it: the variable and the value taken (set, or the default), a
// secret's masked. Bootstrap makes them with the code that command uses;
// the console never sees a secret to mask.
type Setting struct{ Name, Value string }

// Settings is the effective configuration of this process, in the
// command's order, and the lines about variables it did not know.
type Settings struct {
	Lines   []Setting
	Unknown []string
}

// Backups is what the backups page says of this deployment: what `tandem
// backup` would copy here and what it cannot. The server does not know
// where backups are written (the command's DIR), so it lists none.
type Backups struct {
	Database string // the TANDEM_DB kind: sqlite, mysql, memory
	Blobs    string // the TANDEM_BLOBS kind: disk, s3, memory
	// Refused is why `tandem backup` refuses this deployment ("" when it
	// runs): memory keeps nothing another process can read.
	Refused string
	// DatabaseNote says what happens to the database (a SQLite snapshot,
	// or the MySQL dump the operator makes first).
	DatabaseNote string
	// Doc names where the operations guide explains backups.
	Doc string
}

// deleteFlag deletes the flag, recorded as "flag.delete" with the flag as
// it was (AuditedFlags.Delete); an unknown key is a 404 and on record.
func (h *handler) deleteFlag(c *fiber.Ctx) error {
	key := c.Params("key")
	if err := h.AuditedFlags.Delete(c.UserContext(), key); err != nil {
		return err
	}
	return back(c, "/admin/flags", url.Values{"deleted": {key}})
}

func (h *handler) backupsPage(c *fiber.Ctx) error {
	return h.render(c, "backups", fiber.Map{"Title": "Backups", "Backups": h.Backups})
}

func (h *handler) settingsPage(c *fiber.Ctx) error {
	return h.render(c, "settings", fiber.Map{"Title": "Settings", "Settings": h.Settings})
}
