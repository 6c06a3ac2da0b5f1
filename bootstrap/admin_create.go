package bootstrap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.uber.org/fx"
	"golang.org/x/term"

	"tandem/core"
	"tandem/modules/accounts"
	adminmod "tandem/modules/admin"
)

// adminCreate is `tandem admin create EMAIL`: an administrator who can sign
// in to the console with a password, from the command line (the first
// administrator of a deployment, or one who signed up without a password).
// The password is read from the terminal without echo (asked twice), or
// from the first line of stdin when it is piped: never from an argument,
// which ps and the shell's history would show. The account is made (or
// found), its address verified and its password set (accounts.SetUpAdmin),
// then the grant stored through the audit log, by "cli", as admin grant
// does. Each run says what it did; run again, it says nothing changed.
func adminCreate(ctx context.Context, cfg Config, email string, stdin io.Reader, stdout, stderr io.Writer) error {
	password, err := readPassword(email, stdin, stderr)
	if err != nil {
		return err
	}
	var acc *accounts.Service
	var audited *adminmod.AuditedAccounts
	app := fx.New(Options(cfg), fx.NopLogger, fx.Populate(&acc, &audited))
	if err := app.Err(); err != nil {
		return err
	}
	setup, err := acc.SetUpAdmin(ctx, email, password)
	if err != nil {
		return fmt.Errorf("admin create %s: %s", email, core.As(err).Message)
	}
	email, _ = accounts.NormalizeEmail(email)
	if !setup.Granted {
		if err := audited.SetAdmin(adminmod.AsCLI(ctx), email, true); err != nil {
			return fmt.Errorf("admin create %s: %s", email, core.As(err).Message)
		}
	}
	_, err = fmt.Fprintf(stdout, "%s: %s\n", email, describeSetup(setup))
	return err
}

// describeSetup says what admin create did, in one line.
func describeSetup(s accounts.AdminSetup) string {
	var did []string
	switch {
	case s.Replaced:
		did = append(did, "an unverified sign-up of the address deleted; account created with the address verified and the password")
	case s.Created:
		did = append(did, "account created with the address verified and the password")
	case s.PasswordSet:
		did = append(did, fmt.Sprintf("password set (%d sessions ended)", s.SessionsEnded))
	default:
		did = append(did, "account already verified with this password")
	}
	if s.Granted {
		did = append(did, "already an administrator")
	} else {
		did = append(did, "administrator granted")
	}
	if !s.Created && !s.PasswordSet && s.Granted {
		did = append(did, "nothing changed")
	}
	return strings.Join(did, "; ")
}

// readPassword reads the new password: twice without echo from a terminal,
// else the first line of stdin (a trailing CR or LF is not part of it).
func readPassword(email string, stdin io.Reader, stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(stderr, "password for %s (8 to %d characters): ", email, accounts.MaxPassword)
		first, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("admin create: reading the password: %w", err)
		}
		fmt.Fprint(stderr, "the same again: ")
		second, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("admin create: reading the password: %w", err)
		}
		if string(first) != string(second) {
			return "", errors.New("admin create: the two passwords differ; nothing changed")
		}
		return string(first), nil
	}
	line, err := bufio.NewReader(io.LimitReader(stdin, 4*accounts.MaxPassword+2)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("admin create: reading the password from stdin: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("admin create: no password: type it at the prompt, or pipe it on stdin (printf '%s\\n' \"$PASSWORD\" | tandem admin create EMAIL)")
	}
	return line, nil
}
