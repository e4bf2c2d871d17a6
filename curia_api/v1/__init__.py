"""Generated code of the public contract curia.v1 (see proto/). Do not edit."""
