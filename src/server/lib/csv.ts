// Shared CSV rules for every CSV the app writes (contacts export, import error report, campaign results).

/**
 * A text value that is only a number or a phone number: an optional leading + or -, then digits,
 * spaces, dots, hyphens and parentheses, at least one digit ("+1 (415) 555-2671", "-33.86").
 * Written so a regex engine tries each position once (the lookahead's `[ ().-]*` and `[0-9]` share
 * no character): the earlier `[0-9 ().-]*[0-9][0-9 ().-]*` tried every split of a run of digits
 * between its two stars, quadratic in the length, so a contacts export whose cells read
 * "-111...1x" spent seconds of the server's one thread per thousand contacts.
 */
const NUMBER_OR_PHONE = "[+-]?(?=[ ().-]*[0-9])[0-9 ().-]+";

/**
 * Papa.unparse's `escapeFormulae` for every CSV the app writes (OWASP "CSV Injection"): a text cell
 * starting with = + - @ TAB or CR gets a leading apostrophe (and quotes), so spreadsheet apps show
 * it as text instead of running it (=HYPERLINK(...), +cmd|'...'!A0, @SUM(...)). Papa leaves JS
 * numbers and booleans alone; this also leaves text that is only a number or a phone number
 * (NUMBER_OR_PHONE): without letters, quotes, $ : ! or | it can name no function, cell or DDE
 * target, so evaluating it is harmless, while the apostrophe would change the value itself (a phone
 * "+14155552671" exported as "'+14155552671", a longitude "-70.1" as "'-70.1").
 */
export const CSV_FORMULA_ESCAPE = new RegExp(`^(?!${NUMBER_OR_PHONE}$)[=+\\-@\\t\\r]`);
