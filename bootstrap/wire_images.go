package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/images"
	"tandem/modules/premium"
)

// wireImages: the uploaded images, their store, limits, settings and
// routes (the blob store is chosen by blobs, TANDEM_BLOBS).
func wireImages(db DBKind) fx.Option {
	return fx.Options(
		images.Module,
		repos(db, memory.NewImageRepo, sqlstore.NewImageRepo, new(images.Repository)),
		fx.Provide(
			func(p *premium.Service) images.Limits { return premiumLimits{p} },
			func(c Config) images.Settings {
				return images.Settings{PublicURL: c.HTTP.PublicURL, MaxFileBytes: int64(c.UploadLimit), SweepGrace: c.SweepGrace}
			},
			web.AsRoute(httpapi.NewImagesHandler),
		),
	)
}
