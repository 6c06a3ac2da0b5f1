package bootstrap

import (
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// NewLogger builds zap from TANDEM_LOG_LEVEL / TANDEM_LOG_FORMAT.
func NewLogger(cfg Config) (*zap.Logger, error) {
	zc := zap.NewProductionConfig()
	if cfg.LogFormat == "console" {
		zc = zap.NewDevelopmentConfig()
		zc.EncoderConfig.EncodeLevel = zapcore.CapitalColorLevelEncoder
	}
	zc.Level = zap.NewAtomicLevelAt(cfg.LogLevel)
	zc.EncoderConfig.TimeKey = "ts"
	zc.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	zc.DisableStacktrace = true
	return zc.Build()
}

// fxLogger sends fx's own wiring events to zap at debug level, its errors
// too: serve returns a failed start's root cause, which main prints as one
// line, instead of fx's chain of every constructor on the way.
var fxLogger = fx.WithLogger(func(log *zap.Logger) fxevent.Logger {
	l := &fxevent.ZapLogger{Logger: log.Named("fx")}
	l.UseLogLevel(zapcore.DebugLevel)
	l.UseErrorLevel(zapcore.DebugLevel)
	return l
})
