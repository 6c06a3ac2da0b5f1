// Package i18n holds the catalogs of translations of the messages.
package i18n
