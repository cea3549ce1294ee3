-- Who answered a completed call (Twilio's AnsweredBy: human, machine_start, machine_end_beep,
-- machine_end_silence, machine_end_other, fax, unknown), so a call campaign's report can tell
-- calls answered by a person from calls that reached voicemail. Null: not a call, not completed,
-- or no answering-machine detection.
ALTER TABLE "campaign_recipients" ADD COLUMN "answered_by" text;
