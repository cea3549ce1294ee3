import {
  Body,
  Button,
  Container,
  Head,
  Hr,
  Html,
  Img,
  Link,
  Preview,
  Section,
  Text,
} from "@react-email/components";
import { render } from "@react-email/render";
import { findHttpLinks } from "../lib/links";

export interface CampaignEmailProps {
  /** the merged body, already with tracked links; paragraphs split on blank lines */
  body: string;
  /** the user's email signature (plain text, line breaks kept) */
  signature?: string;
  senderName: string;
  /**
   * the sender's physical postal address as one line (postalAddressLine), shown after the sender's
   * name in the footer (CAN-SPAM, 15 U.S.C. 7704(a)(5)(A)(iii)); nothing when empty or absent
   */
  postalAddress?: string | null;
  unsubscribeUrl: string;
  preview?: string;
  /**
   * video campaigns: the recipient's landing page and thumbnail; `title` only when the sender chose
   * one (the button then reads "Watch: <title>", else "Watch the video"; videoButtonLabel)
   */
  video?: { url: string; title?: string; thumbnailUrl?: string | null } | null;
}

/**
 * A postal address as one footer line: its lines trimmed, blank ones dropped, joined with ", " (a
 * line's own trailing comma is not doubled), with no trailing full stop (the footer adds one):
 * "12 Baker St\nSpringfield, IL 62701\nUSA" -> "12 Baker St, Springfield, IL 62701, USA". "" for
 * none.
 */
export function postalAddressLine(address: string | null | undefined): string {
  return (address ?? "")
    .split(/\r\n?|\n|[\u2028\u2029]/)
    .map((l) => l.trim().replace(/[\s,;]+$/, ""))
    .filter(Boolean)
    .join(", ")
    .replace(/[\s.,;]+$/, "");
}

/**
 * The footer's sentence before the unsubscribe link: "Sent by Bee Bakery." or, with a postal address
 * (one line, postalAddressLine), "Sent by Bee Bakery, 12 Baker St, Springfield, IL 62701, USA."
 */
export function sentByLine(senderName: string, postalAddress?: string | null): string {
  return postalAddress ? `Sent by ${senderName}, ${postalAddress}.` : `Sent by ${senderName}.`;
}

/**
 * The video button's words: "Watch: <title>" for a title the sender chose (the engine content's
 * videoTitle), else the neutral "Watch the video" (never the library file's name, which video
 * campaign launches do not pass).
 */
export function videoButtonLabel(title: string | null | undefined): string {
  const t = title?.trim();
  return t ? `Watch: ${t}` : "Watch the video";
}

/** The video thumbnail's alt text: "Video message from <sender>" (with the chosen title, if any). */
export function videoAltText(senderName: string, title: string | null | undefined): string {
  const t = title?.trim();
  const from = senderName.trim() ? `Video message from ${senderName.trim()}` : "Video message";
  return t ? `${t}: ${from.charAt(0).toLowerCase()}${from.slice(1)}` : from;
}

/**
 * A paragraph with its http(s) links as <a> tags: the links lib/links findHttpLinks finds, the ones
 * campaigns.content gave placeholders to track (a full stop or comma after a link stays text).
 */
function Linkified({ text }: { text: string }) {
  const parts: string[] = [];
  let at = 0;
  for (const link of findHttpLinks(text)) {
    parts.push(text.slice(at, link.index), link.url);
    at = link.end;
  }
  parts.push(text.slice(at));
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <Link key={i} href={p} style={{ color: "#2563eb" }}>
            {p}
          </Link>
        ) : (
          <span key={i}>{p}</span>
        ),
      )}
    </>
  );
}

/**
 * A campaign email (React Email): body paragraphs, optional video button, signature, and the footer
 * "Sent by <sender>[, <postal address>]. Unsubscribe".
 */
export function CampaignEmail({
  body,
  signature,
  senderName,
  postalAddress,
  unsubscribeUrl,
  preview,
  video,
}: CampaignEmailProps) {
  const paragraphs = body.split(/\n\s*\n/).filter((p) => p.trim());
  return (
    <Html>
      <Head />
      {preview ? <Preview>{preview}</Preview> : null}
      <Body style={{ fontFamily: "Arial, sans-serif", background: "#f6f7f9", padding: "24px 0" }}>
        <Container style={{ background: "#ffffff", borderRadius: 12, padding: 32, maxWidth: 560 }}>
          {paragraphs.map((p, i) => (
            <Text key={i} style={{ fontSize: 15, lineHeight: "24px", whiteSpace: "pre-line" }}>
              <Linkified text={p} />
            </Text>
          ))}
          {video ? (
            <Section style={{ textAlign: "center", margin: "24px 0" }}>
              {video.thumbnailUrl ? (
                <Link href={video.url}>
                  <Img
                    src={video.thumbnailUrl}
                    alt={videoAltText(senderName, video.title)}
                    width="480"
                    style={{ borderRadius: 8, margin: "0 auto" }}
                  />
                </Link>
              ) : null}
              <Button
                href={video.url}
                style={{ background: "#111827", color: "#fff", padding: "12px 20px", borderRadius: 8 }}
              >
                {videoButtonLabel(video.title)}
              </Button>
            </Section>
          ) : null}
          {signature?.trim() ? (
            <Text style={{ whiteSpace: "pre-line", color: "#374151" }}>{signature}</Text>
          ) : null}
          <Hr />
          <Text style={{ color: "#6b7280", fontSize: 12 }}>
            {sentByLine(senderName, postalAddress)}{" "}
            <Link href={unsubscribeUrl} style={{ color: "#6b7280" }}>
              Unsubscribe
            </Link>
          </Text>
        </Container>
      </Body>
    </Html>
  );
}

/**
 * Renders a campaign email to `{html, text}` (text: the plain-text part, whose last line is
 * "Sent by <sender>[, <postal address>]. Unsubscribe: <url>").
 */
export async function renderCampaignEmail(props: CampaignEmailProps) {
  const element = <CampaignEmail {...props} />;
  const html = await render(element);
  const lines = [props.body.trim()];
  if (props.video) lines.push(`${videoButtonLabel(props.video.title)}: ${props.video.url}`);
  if (props.signature?.trim()) lines.push(props.signature.trim());
  lines.push(`--\n${sentByLine(props.senderName, props.postalAddress)} Unsubscribe: ${props.unsubscribeUrl}`);
  return { html, text: lines.join("\n\n") };
}
