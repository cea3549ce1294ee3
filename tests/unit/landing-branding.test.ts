import { describe, expect, it } from "vitest";
import { renderLandingPage } from "../../src/server/features/campaigns/campaigns.landing";
import type { LandingData } from "../../src/server/features/campaigns/campaigns.video";

function data(sender: Partial<LandingData["sender"]>): LandingData {
  return {
    recipient: {} as LandingData["recipient"],
    campaign: {} as LandingData["campaign"],
    media: { name: "Hello" } as LandingData["media"],
    page: {
      recipientName: "Maria",
      message: "Hi Maria",
      ctaUrl: null,
      ctaLabel: null,
    } as LandingData["page"],
    sender: {
      name: "Sam",
      businessName: "Sam's Plumbing",
      email: "sam@example.com",
      phone: null,
      brandColor: null,
      logoUrl: null,
      hideBranding: false,
      ...sender,
    },
  };
}

describe("recipient landing page branding (issue 10: Settings > Workspace)", () => {
  it("uses the workspace's brand colour, logo and white-label choice", () => {
    const plain = renderLandingPage(data({}), "tok");
    expect(plain).toContain("--plyr-color-main: #4f46e5");
    expect(plain).toContain("Powered by Pitchwise");
    expect(plain).not.toContain('class="logo"');

    const branded = renderLandingPage(
      data({ brandColor: "#ffd400", logoUrl: "https://cdn.example.com/logo.png", hideBranding: true }),
      "tok",
    );
    expect(branded).toContain("--plyr-color-main: #ffd400");
    // dark text on a light brand colour keeps the button readable
    expect(branded).toContain("background: #ffd400; color: #111827");
    expect(branded).toContain(
      '<img class="logo" src="https://cdn.example.com/logo.png" alt="Sam&#39;s Plumbing logo"',
    );
    expect(branded).not.toContain("Powered by Pitchwise");
    expect(renderLandingPage(data({ brandColor: "#0a2540" }), "t")).toContain(
      "background: #0a2540; color: #ffffff",
    );
    // mid grey (luminance 0.184): white reads 4.48:1, the dark text #111827 only 3.95:1 (the page
    // weighed white against pure black and chose #111827)
    expect(renderLandingPage(data({ brandColor: "#777777" }), "t")).toContain(
      "background: #777777; color: #ffffff",
    );
  });

  it("ignores a colour or logo that is not safe to put in the page", () => {
    const html = renderLandingPage(
      data({ brandColor: "red;}</style><script>", logoUrl: "javascript:alert(1)" }),
      "t",
    );
    expect(html).toContain("--plyr-color-main: #4f46e5");
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("<script>alert");
  });
});
