"""The gRPC metadata keys of `curia.v1` that are not in the messages."""

#: The trailing metadata key of a refused call's reason (CallStatus.reason).
REASON_KEY = "curia-reason"
#: The metadata key carrying an operator credential or a bot key, as `Bearer <secret>`.
AUTHORIZATION_KEY = "authorization"
