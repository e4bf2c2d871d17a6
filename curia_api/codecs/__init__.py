"""Per-game typed contract adapters: one module per game, named after it, each calling
`curia_api.codec.register_codec` on import (found by `curia_api.codec.codec_for`)."""
