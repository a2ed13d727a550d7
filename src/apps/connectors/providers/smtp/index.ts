import { ConnectionFailedError } from '../../errors.js';
import type { ConnectorInstance, ConnectorProvider } from '../types.js';
import { configBool, configInt, configText, failure, requireConfig } from '../values.js';

export interface MailMessage {
  to: string | string[];
  subject: string;
  text?: string;
  html?: string;
  from?: string;
  cc?: string | string[];
  bcc?: string | string[];
  reply_to?: string;
}

export interface SmtpInstance extends ConnectorInstance {
  /** Sends one message; ConnectionFailedError when the server refuses it. */
  send_mail(message: MailMessage): Promise<{ message_id: string; accepted: string[]; rejected: string[] }>;
}

/**
 * Email over SMTP with nodemailer. `secure` = TLS from the first byte (port 465); otherwise
 * STARTTLS is used when the server offers it. The connection test is `transporter.verify()`
 * (connect, greet, authenticate).
 */
export function createSmtpProvider(): ConnectorProvider<SmtpInstance> {
  const provider: ConnectorProvider<SmtpInstance> = {
    category: 'email',
    provider_type: 'smtp',
    display_name: 'SMTP server',
    config_schema: [
      { key: 'host', label: 'Host', required: true, secret: false },
      { key: 'port', label: 'Port (default 587, or 465 when secure)', required: false, secret: false },
      { key: 'secure', label: 'TLS from the start (port 465)', required: false, secret: false },
      { key: 'user', label: 'User', required: false, secret: false },
      { key: 'password', label: 'Password', required: false, secret: true },
      { key: 'from', label: 'Default sender', required: false, secret: false },
    ],
    from_config(config, ctx) {
      requireConfig(provider, config);
      const secure = configBool(config, 'secure', configText(config, 'port') === '465');
      const port = configInt(config, 'port', secure ? 465 : 587, 1, 65535);
      const user = configText(config, 'user');
      const from = configText(config, 'from');
      const options = {
        host: configText(config, 'host')!,
        port,
        secure,
        ...(user ? { auth: { user, pass: configText(config, 'password') ?? '' } } : {}),
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      };
      // nodemailer is loaded on the first use: every boot registers this provider, few send mail
      const policy = ctx.network;
      // connected to the address the deployment's policy allowed (services/network.ts), with no
      // second resolution that could land elsewhere; TLS still presents and checks the host name
      const transport = async () => {
        const { address } = await policy.resolve(options.host);
        const pinned = address === options.host ? options : { ...options, host: address, servername: options.host, tls: { servername: options.host } };
        return (await import('nodemailer')).default.createTransport(pinned);
      };
      return {
        async test_connection() {
          let t: Awaited<ReturnType<typeof transport>> | undefined;
          try {
            t = await transport();
            await t.verify();
            return {
              success: true, message: `SMTP server ${options.host}:${port} accepted the connection${user ? ' and the credentials' : ''}`,
              message_id: user ? 'connectors.test.smtp_ok_login' : 'connectors.test.smtp_ok', message_values: { host: options.host, port },
              details: { host: options.host, port, secure },
            };
          } catch (err) {
            return failure(err);
          } finally {
            t?.close();
          }
        },
        async send_mail(m) {
          const t = await transport();
          try {
            const info = await t.sendMail({
              from: m.from ?? from ?? user, to: m.to, cc: m.cc, bcc: m.bcc, replyTo: m.reply_to,
              subject: m.subject, text: m.text, html: m.html,
            });
            const addr = (a: unknown) => (typeof a === 'string' ? a : (a as { address: string }).address);
            return { message_id: info.messageId, accepted: (info.accepted ?? []).map(addr), rejected: (info.rejected ?? []).map(addr) };
          } catch (err) {
            throw new ConnectionFailedError(`sending mail through ${options.host} failed: ${(err as Error).message}`);
          } finally {
            t.close();
          }
        },
      };
    },
  };
  return provider;
}
