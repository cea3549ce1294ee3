import {
  Body,
  Button,
  Container,
  Head,
  Heading,
  Html,
  Preview,
  Section,
  Text,
} from "@react-email/components";
import { render } from "@react-email/render";

export interface DemoEmailProps {
  name: string;
  appUrl: string;
  /** link to the demo video page, when one exists */
  videoUrl?: string | null;
}

/** The demo email sent from the landing page (React Email). */
export function DemoEmail({ name, appUrl, videoUrl }: DemoEmailProps) {
  return (
    <Html>
      <Head />
      <Preview>Your Pitchwise demo is here</Preview>
      <Body style={{ fontFamily: "Arial, sans-serif", background: "#f6f7f9", padding: "24px 0" }}>
        <Container style={{ background: "#ffffff", borderRadius: 12, padding: 32, maxWidth: 560 }}>
          <Heading style={{ fontSize: 22 }}>Hi {name}, here is your Pitchwise demo</Heading>
          <Text>
            This is what your customers receive when you reach them with Pitchwise: a personal video, a text,
            an AI voice call and an email, all from one place.
          </Text>
          {videoUrl ? (
            <Section style={{ textAlign: "center", margin: "24px 0" }}>
              <Button
                href={videoUrl}
                style={{ background: "#111827", color: "#fff", padding: "12px 20px", borderRadius: 8 }}
              >
                Watch your AI avatar video
              </Button>
            </Section>
          ) : null}
          <Section style={{ textAlign: "center", margin: "24px 0" }}>
            <Button
              href={`${appUrl}/register`}
              style={{ background: "#2563eb", color: "#fff", padding: "12px 20px", borderRadius: 8 }}
            >
              Start your free trial
            </Button>
          </Section>
          <Text style={{ color: "#6b7280", fontSize: 12 }}>
            You received this because someone requested a demo with this address.
          </Text>
        </Container>
      </Body>
    </Html>
  );
}

/** Renders the demo email to `{html, text}`. */
export async function renderDemoEmail(props: DemoEmailProps) {
  const element = <DemoEmail {...props} />;
  return { html: await render(element), text: await render(element, { plainText: true }) };
}
