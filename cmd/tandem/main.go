// Command tandem is the Tandem backend: `tandem serve|migrate|backup|restore|admin ...`.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	_ "time/tzdata" // reminders and days follow each user's time zone, also where the system has no zoneinfo (the image)

	"tandem/bootstrap"
)

func main() {
	if err := bootstrap.Run(context.Background(), os.Args[1:], os.LookupEnv, os.Stdout); err != nil {
		// One line per problem, e.g. "tandem: TANDEM_DB: ...".
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintln(os.Stderr, "tandem: "+line)
		}
		os.Exit(1)
	}
}
