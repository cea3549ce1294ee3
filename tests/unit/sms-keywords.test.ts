import { describe, expect, it } from "vitest";
import {
  classifySmsReply,
  helpReply,
  nameList,
  stopConfirmation,
} from "../../src/server/features/compliance/sms-keywords";

// 47 CFR 64.1200(a)(10): "stop", "quit", "end", "revoke", "opt out", "cancel", "unsubscribe" in a reply
// revoke consent; Twilio's defaults add STOPALL and OPTOUT; CTIA: START/UNSTOP/YES, HELP/INFO.
describe("classifySmsReply", () => {
  it.each([
    "STOP",
    "stop",
    " Stop. ",
    "STOP!!!",
    "STOP ALL",
    "stopall",
    "Quit",
    "END",
    "cancel",
    "Revoke",
    "OPT OUT",
    "opt-out",
    "OptOut",
    "unsubscribe",
    "stop please",
    "Please STOP",
    "stop texting me",
    "STOP 🛑",
    "🛑stop",
    "Arrêt",
    "ALTO",
    "parar",
    "remove me from your list",
    "Please take me off, do not text this number again",
    "I want to opt out of these",
  ])("%j is an opt-out", (body) => expect(classifySmsReply(body)).toBe("stop"));

  it.each([
    "Thanks, see you at the end of the month for the appointment then",
    "Can you stop by the shop on Tuesday afternoon around three",
    "ok",
    "",
    "🛑",
    "Who is this?",
    "STOPPED by yesterday",
    "UNSTOPPABLE",
  ])("%j is not an opt-out", (body) => expect(classifySmsReply(body)).not.toBe("stop"));

  it("reads START, UNSTOP and YES as opt-ins and HELP / INFO as help", () => {
    expect(["START", "unstop", "Yes!", "start."].map((b) => classifySmsReply(b))).toEqual([
      "start",
      "start",
      "start",
      "start",
    ]);
    expect(["HELP", "help?", "Info", "AYUDA"].map((b) => classifySmsReply(b))).toEqual([
      "help",
      "help",
      "help",
      "help",
    ]);
    expect(classifySmsReply("yes please send the quote")).toBeNull();
  });

  it("takes Twilio's OptOutType as given", () => {
    expect(classifySmsReply("arrêt maintenant", "STOP")).toBe("stop");
    expect(classifySmsReply("whatever", "START")).toBe("start");
  });
});

describe("reply texts", () => {
  it("names the senders", () => {
    expect(nameList([])).toBe("Pitchwise");
    expect(nameList(["A", "B"])).toBe("A and B");
    expect(nameList(["A", "B", "C", "D"])).toBe("A, B and 2 others");
    expect(stopConfirmation(["Acme"])).toMatch(
      /^You have been unsubscribed from Acme .*Reply START to resubscribe\.$/,
    );
    expect(helpReply("Acme", "+12125550100")).toBe(
      "Acme: texts sent with Pitchwise. Questions: +12125550100. Reply STOP to unsubscribe. Msg&data rates may apply.",
    );
  });
});
