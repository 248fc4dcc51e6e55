-- The arena store's first schema (version 1), as referee/arena/store.py made it: the
-- starting point of tests/arena/test_store_migrations.py. Never change it.
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('staff', 'student')),
    email TEXT,
    password_hash TEXT,                  -- argon2id; NULL: no password set yet
    invite_hash TEXT UNIQUE,             -- SHA-256 of the invite token; NULL: none pending
    invite_expires TEXT,
    token_hash TEXT UNIQUE,              -- SHA-256 of the API token; NULL: none
    created_at TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))
);
CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,            -- SHA-256 of the session id the cookie carries
    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    csrf TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX sessions_by_account ON sessions(account_id);
CREATE TABLE attempts (                  -- rate-limited events: login:USER, login-ip:ADDR, ...
    key TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX attempts_by_key ON attempts(key, at);
CREATE TABLE uploads (
    id INTEGER PRIMARY KEY,
    sha256 TEXT NOT NULL,                -- the file uploads/SHA256 (two uploads may share it)
    size INTEGER NOT NULL,
    name TEXT NOT NULL,                  -- the file name as uploaded (shown escaped)
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    received_at TEXT NOT NULL
);
CREATE INDEX uploads_by_account ON uploads(account_id);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    number INTEGER NOT NULL,             -- 1, 2, ... per account
    upload_id INTEGER NOT NULL REFERENCES uploads(id),
    status TEXT NOT NULL DEFAULT 'received' CHECK (status IN ('received', 'building',
        'checking', 'active', 'failed', 'superseded', 'disqualified')),
    problem TEXT,
    build_log TEXT,
    check_log TEXT,
    command TEXT,
    capabilities TEXT,                   -- JSON list of protocol extensions
    content_hash TEXT,
    created_at TEXT NOT NULL,
    checked_at TEXT,
    activated_at TEXT,
    late INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),
    UNIQUE (account_id, number)
);
-- At most one active version per account.
CREATE UNIQUE INDEX one_active_version ON versions(account_id) WHERE status = 'active';
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('placement', 'ladder', 'rerun')),
    blue INTEGER NOT NULL REFERENCES versions(id),
    orange INTEGER NOT NULL REFERENCES versions(id),
    seed INTEGER NOT NULL,
    opening TEXT,                        -- JSON list of the opening's moves, or NULL
    state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'running', 'done', 'void')),
    attempt INTEGER NOT NULL DEFAULT 0,
    record TEXT,                         -- relative to the arena's folder
    winner TEXT CHECK (winner IN ('blue', 'orange')),
    reason TEXT,
    plies INTEGER,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    detail TEXT,
    CHECK (blue <> orange)
);
CREATE INDEX games_by_state ON games(state);
CREATE INDEX games_by_blue ON games(blue);
CREATE INDEX games_by_orange ON games(orange);
CREATE TABLE ratings (                   -- a cache of the last fit, reproducible from games
    version_id INTEGER PRIMARY KEY REFERENCES versions(id),
    rating REAL NOT NULL,
    low REAL,
    high REAL,
    games INTEGER NOT NULL,
    points REAL NOT NULL,
    flags TEXT NOT NULL DEFAULT '',      -- e.g. 'provisional'
    rank INTEGER,                        -- NULL: not ranked
    computed_at TEXT NOT NULL
);
CREATE TABLE audit (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    account_id INTEGER REFERENCES accounts(id),  -- NULL: the command line
    action TEXT NOT NULL,
    target TEXT,
    detail TEXT
);
CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE grades (
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
    version_id INTEGER REFERENCES versions(id),
    points REAL NOT NULL,
    grade TEXT NOT NULL,
    computed_at TEXT NOT NULL
);
