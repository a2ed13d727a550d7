import type { ExtensionMessages } from '@fw/web';

/**
 * The connector form's texts, read with `useAppT<typeof messages>()` (docs/extend-client.md#messages),
 * and the connection test's results: `connectors.test.*` and `connectors.oauth.*` are the
 * `message_id`s the server's test and OAuth callback answer with, formatted with their
 * `message_values` (src/apps/connectors/providers/, commands.ts).
 */
const en = {
  'connectors.type': 'Provider',
  'connectors.params': 'Parameters',
  'connectors.test': 'Test connection',
  'connectors.secret_set': 'Saved (hidden)',
  'connectors.save_first': 'Save your changes first: the test uses the saved parameters.',
  'connectors.test_ok': 'Connection works: {message}',
  'connectors.test_failed': 'Connection failed: {message}',
  'connectors.test.webhook_ok': 'webhook answered {status}',
  'connectors.test.webhook_refused': 'webhook answered {status}; expected 2xx',
  'connectors.test.smtp_ok': 'SMTP server {host}:{port} accepted the connection',
  'connectors.test.smtp_ok_login': 'SMTP server {host}:{port} accepted the connection and the credentials',
  'connectors.test.local_ok': 'folder {root} is writable',
  'connectors.test.s3_ok': 'bucket "{bucket}" is reachable',
  'connectors.test.timed_out': 'the connection test timed out after {ms, number} ms',
  'connectors.test.network.blocked_port': 'could not connect: this port is blocked for web requests (fetch refuses ports such as 9, 25 and 6000); use another port',
  'connectors.test.network.refused': 'could not connect: nothing answers at that address (connection refused)',
  'connectors.test.network.unknown_host': 'could not connect: the host name could not be found',
  'connectors.test.network.timeout': 'could not connect: the server did not answer in time',
  'connectors.test.network.closed': 'could not connect: the server closed the connection',
  'connectors.test.network.certificate': "could not connect: the server's certificate is not trusted",
  'connectors.test.network.unreachable': 'could not connect: the network cannot reach that host',
  'connectors.oauth.refused': 'authorization refused by the provider: {error}',
  'connectors.oauth.refused_described': 'authorization refused by the provider: {error} ({description})',
  'connectors.oauth.exchange_failed': 'OAuth code exchange failed: {reason}',
};

export const messages = {
  en,
  fr: {
    'connectors.type': 'Fournisseur',
    'connectors.params': 'Paramètres',
    'connectors.test': 'Tester la connexion',
    'connectors.secret_set': 'Enregistré (masqué)',
    'connectors.save_first': 'Enregistrez d’abord vos modifications : le test utilise les paramètres enregistrés.',
    'connectors.test_ok': 'La connexion fonctionne : {message}',
    'connectors.test_failed': 'La connexion a échoué : {message}',
    'connectors.test.webhook_ok': 'le webhook a répondu {status}',
    'connectors.test.webhook_refused': 'le webhook a répondu {status} ; une réponse 2xx était attendue',
    'connectors.test.smtp_ok': 'le serveur SMTP {host}:{port} a accepté la connexion',
    'connectors.test.smtp_ok_login': 'le serveur SMTP {host}:{port} a accepté la connexion et les identifiants',
    'connectors.test.local_ok': 'le dossier {root} est accessible en écriture',
    'connectors.test.s3_ok': 'le bucket « {bucket} » est joignable',
    'connectors.test.timed_out': 'le test de connexion a expiré après {ms, number} ms',
    'connectors.test.network.blocked_port': 'connexion impossible : ce port est bloqué pour les requêtes web (fetch refuse des ports comme 9, 25 et 6000) ; utilisez-en un autre',
    'connectors.test.network.refused': 'connexion impossible : rien ne répond à cette adresse (connexion refusée)',
    'connectors.test.network.unknown_host': 'connexion impossible : le nom d’hôte est introuvable',
    'connectors.test.network.timeout': 'connexion impossible : le serveur n’a pas répondu à temps',
    'connectors.test.network.closed': 'connexion impossible : le serveur a fermé la connexion',
    'connectors.test.network.certificate': 'connexion impossible : le certificat du serveur n’est pas reconnu',
    'connectors.test.network.unreachable': 'connexion impossible : le réseau ne peut pas joindre cet hôte',
    'connectors.oauth.refused': 'autorisation refusée par le fournisseur : {error}',
    'connectors.oauth.refused_described': 'autorisation refusée par le fournisseur : {error} ({description})',
    'connectors.oauth.exchange_failed': 'l’échange du code OAuth a échoué : {reason}',
  },
} satisfies ExtensionMessages<typeof en>;
