CREATE TABLE "contact_words" (
	"user_id" uuid NOT NULL,
	"word" text NOT NULL,
	CONSTRAINT "contact_words_user_id_word_pk" PRIMARY KEY("user_id","word")
);
--> statement-breakpoint
CREATE INDEX "contact_words_trgm_idx" ON "contact_words" USING gin ("word" gin_trgm_ops);