/**
 * Worker entry for production (`fly.toml` process group `worker`): the same boot with
 * PROCESS_ROLE=worker, i.e. pg-boss workers for every registered queue and no HTTP server.
 */
process.env.PROCESS_ROLE = "worker";
await import("../src/server/index");

export {};
