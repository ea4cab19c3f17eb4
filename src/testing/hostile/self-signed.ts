/**
 * Test-only: a self-signed certificate for 127.0.0.1 (and its key, which guards nothing: it is public here), valid
 * until 2126, made once with `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
 * -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1`. No client trusts it. Never imported by src.
 */
export const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgtn46PzflEta4Jq4X
gbj5tbn8o7VfnmZtD8VktpEFGm6hRANCAASNZY9O6lL9oLAcepcqyfrttl84dDQ6
e2mg5RhMjC4bDZAAjIh+rE/u05af8r7G+X+ndAW925kcdDJ5JpHUwZFw
-----END PRIVATE KEY-----
`;

export const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgIUbOM1xN2R3ZnAL2K+IIUJTtppKpYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyNjE4MDg1MloYDzIxMjYxMTAy
MTgwODUyWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASNZY9O6lL9oLAcepcqyfrttl84dDQ6e2mg5RhMjC4bDZAAjIh+rE/u
05af8r7G+X+ndAW925kcdDJ5JpHUwZFwo2QwYjAdBgNVHQ4EFgQUpsIzzXffz5XK
YotJ22o6VcCA7aQwHwYDVR0jBBgwFoAUpsIzzXffz5XKYotJ22o6VcCA7aQwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
IQCFngwjneaTkKdw02fAIpiJJA6OhwlOBM32y1/M2juB7wIgf0S37FGwR2R5ZzDn
YVkLiZt1EKc+DPCDoKUNQNECLkQ=
-----END CERTIFICATE-----
`;
