-- A new tag's colour, when none is chosen, was #6366f1: white 12 px text on it (the chip picks the more
-- readable of white and near-black, lib/contrast readableTextOn) reaches only 4.47:1, under WCAG AA's
-- 4.5:1 (an axe 'serious' finding on the contact page). #4f46e5 gives white text 6.29:1. Tags that
-- already have the old colour keep it: it may have been chosen.
ALTER TABLE "tags" ALTER COLUMN "color" SET DEFAULT '#4f46e5';
