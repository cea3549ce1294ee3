-- Rate-limit windows shared by every app machine (rate-limiter-flexible RateLimiterDrizzle, when
-- RATE_LIMIT_STORE is postgres, the production default): login, registration, password, demo and API
-- key limits hold across machines instead of per process.
CREATE TABLE "rate_limits" (
  "key" text PRIMARY KEY NOT NULL,
  "points" integer NOT NULL,
  "expire" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "rate_limits_expire_idx" ON "rate_limits" ("expire");
