/**
 * Import rules of the server (README "Architecture", ARCHITECTURE.md "A feature owns its folder").
 * `npm run check:deps` (run by `npm run lint`, hence by `npm test`) fails on any of them.
 * tests/unit/dependency-rules.test.ts runs these same rules on tests/fixtures/deps/ to prove that
 * each one fails on a bad import.
 *
 * Paths are relative to the directory the check runs in (the repository root).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "No import cycles over the server, type-only imports included: a cycle means two modules are one " +
        "concern split in two files, or a contract that lives beside its implementation.",
      severity: "error",
      from: { path: "^src/server/" },
      to: { circular: true },
    },
    {
      name: "feature-internals-private",
      comment:
        "A feature's queries (its SQL) and job handlers are its own: another feature calls its exported " +
        "service functions or enqueues its job contracts (<feature>.jobs.ts).",
      severity: "error",
      from: { path: "^src/server/features/([^/]+)/" },
      to: {
        path: "^src/server/features/[^/]+/[^/]+[.](queries|handlers)[.]ts$",
        pathNot: "^src/server/features/$1/",
      },
    },
    {
      name: "queries-only-inside-feature",
      comment: "A feature's queries file is imported only from inside that feature.",
      severity: "error",
      from: { pathNot: "^src/server/features/" },
      to: { path: "^src/server/features/[^/]+/[^/]+[.]queries[.]ts$" },
    },
    {
      name: "handlers-only-from-registry",
      comment:
        "Job handlers are imported only by their own feature and the worker's registry " +
        "(src/server/jobs/registry.ts); callers enqueue the contract in <feature>.jobs.ts.",
      severity: "error",
      from: { pathNot: ["^src/server/features/", "^src/server/jobs/registry[.]ts$"] },
      to: { path: "^src/server/features/[^/]+/[^/]+[.]handlers[.]ts$" },
    },
    {
      name: "vendor-sdk-only-in-providers",
      comment:
        "Vendor SDKs (stripe, twilio, postmark, @aws-sdk/*) are used only inside src/server/providers/; " +
        "code reaches a vendor through the provider interfaces.",
      severity: "error",
      from: { pathNot: "^src/server/providers/" },
      to: { path: "(^|/)node_modules/(stripe|twilio|postmark|@aws-sdk/[^/]+)/" },
    },
  ],
  options: {
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "(^|/)(routeTree[.]gen[.]ts|[^/]+[.]d[.]ts)$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
