"""Per-game typed contract adapters: one module per game, named after it, each calling
`service.codec.register_codec` on import (found by `service.codec.codec_for`)."""
