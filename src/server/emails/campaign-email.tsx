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

export interface CampaignEmailProps {
  /** the merged body, already with tracked links; paragraphs split on blank lines */
  body: string;
  /** the user's email signature (plain text, line breaks kept) */
  signature?: string;
  senderName: string;
  unsubscribeUrl: string;
  preview?: string;
  /** video campaigns: the recipient's landing page and thumbnail */
  video?: { url: string; title?: string; thumbnailUrl?: string | null } | null;
}

const URL_RE = /(https?:\/\/[^\s<>"')]+)/g;

function Linkified({ text }: { text: string }) {
  const parts = text.split(URL_RE);
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

/** A campaign email (React Email): body paragraphs, optional video button, signature, unsubscribe footer. */
export function CampaignEmail({
  body,
  signature,
  senderName,
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
                    alt={video.title ?? "Your video"}
                    width="480"
                    style={{ borderRadius: 8, margin: "0 auto" }}
                  />
                </Link>
              ) : null}
              <Button
                href={video.url}
                style={{ background: "#111827", color: "#fff", padding: "12px 20px", borderRadius: 8 }}
              >
                {video.title ? `Watch: ${video.title}` : "Watch your video"}
              </Button>
            </Section>
          ) : null}
          {signature?.trim() ? (
            <Text style={{ whiteSpace: "pre-line", color: "#374151" }}>{signature}</Text>
          ) : null}
          <Hr />
          <Text style={{ color: "#6b7280", fontSize: 12 }}>
            Sent by {senderName}.{" "}
            <Link href={unsubscribeUrl} style={{ color: "#6b7280" }}>
              Unsubscribe
            </Link>
          </Text>
        </Container>
      </Body>
    </Html>
  );
}

/** Renders a campaign email to `{html, text}` (text: the plain-text part). */
export async function renderCampaignEmail(props: CampaignEmailProps) {
  const element = <CampaignEmail {...props} />;
  const html = await render(element);
  const lines = [props.body.trim()];
  if (props.video)
    lines.push(
      `${props.video.title ? `Watch: ${props.video.title}` : "Watch your video"}: ${props.video.url}`,
    );
  if (props.signature?.trim()) lines.push(props.signature.trim());
  lines.push(`--\nSent by ${props.senderName}. Unsubscribe: ${props.unsubscribeUrl}`);
  return { html, text: lines.join("\n\n") };
}
