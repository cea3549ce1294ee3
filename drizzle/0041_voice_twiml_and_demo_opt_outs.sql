-- TwiML documents the Twilio voice provider serves from a URL when a call's TwiML is longer than
-- Twilio's inline limit (the Calls API's `Twiml` parameter takes at most 4,000 characters; a call
-- script may be 5,000). Twilio fetches them by id (a random 160-bit token) with X-Twilio-Signature.
CREATE TABLE "voice_twiml_documents" (
  "id" text PRIMARY KEY NOT NULL,
  "twiml" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "voice_twiml_documents_created_idx" ON "voice_twiml_documents" ("created_at");--> statement-breakpoint
-- Numbers that pressed 9 during a landing-page demo call: the demo neither calls nor texts them again.
CREATE TABLE "demo_opt_outs" (
  "phone" text PRIMARY KEY NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
