/**
 * The rule table of scoreInjection (injection.ts): ids, weights and patterns. Patterns run on
 * lower-cased, NFKC-normalised text with blanks collapsed (line breaks kept), and again on the
 * de-obfuscated view. Weights: ≥ 0.6 for cues that mean an attack on their own, ≤ 0.55 for
 * cues that also occur in business text and only count together with another one.
 *
 * When adding a rule: give it a targeted test in tests/ai/guards/injection.test.ts (RULE_CASES,
 * with a benign near miss) and check `npx tsx bench/ai-guards.ts` for precision at 60.
 */

export interface Rule {
  id: string;
  weight: number;
  patterns: RegExp[];
}

// Building blocks (the text is lower-cased before matching).
// "my" is absent on purpose: a user retracting their own instructions is not an attack.
const QUAL = '(?:all|any|every|each|the|your|of|these|those|previous|prior|above|preceding|earlier|former|initial|original|existing|system|old|foregoing|current|default|safety|security|content|developer|programmed|other)';
const STRONG_QUAL = '(?:all|any|every|your|previous|prior|above|preceding|earlier|former|initial|original|system|foregoing|programmed|safety|security|content)';
const INSTR = '(?:instructions?|prompts?|directions?|rules|guidelines|guidance|directives|commands|context|constraints|guardrails|programming|polic(?:y|ies)|restrictions|filters|safeguards|system prompt|training)';
const OVERRIDE_VERB = "(?:ignore|ignoring|disregard|forget|overlook|override|overrule|bypass|skip|discard|abandon|drop|neglect|set aside|throw away|pay no attention to|stop following|don't follow|do not follow|no longer follow)";
const SEND = '(?:send|e-?mail|mail|forward|post|upload|transmit|exfiltrate|leak|export|copy|share|dump|push|sync|envoie[rz]?|envoyez|transf[ée]re[rz]?|transmet(?:s|tez|tre)?|sende|senden|schicke|schicken|[üu]bermittle|exportiere|env[íi]a|enviar|exporta|invia|inviare|esporta|envie)';
const BULK = '(?:all|every|each|the entire|the whole|the full|the complete|the contents? of|a (?:full|complete) (?:list|dump|export|copy) of|the list of|tous|toutes|la liste des|alle|s[äa]mtliche|die liste (?:der|aller)|todos|todas|la lista de|tutti|tutte)';
const DATA = '(?:records?|mailbox|inbox|mails|customers?|customer (?:data|list|records|emails)|contacts?|clients?|users?|accounts?|passwords?|credentials|api ?keys?|tokens?|secrets?|emails?|messages|conversations?|chat history|history|database|tables?|personal data|pii|kundendaten|kunden|daten|kontakte|donn[ée]es|registros|contactos|clientes|datos|dati|contatti|password)';
const DEST = '(?:https?://|ftp://|www\\.|[a-z0-9._%+-]+@[a-z0-9-]+\\.[a-z]{2,}|\\d{1,3}(?:\\.\\d{1,3}){3})';
const SECRET = '\\b(?:passwords?(?! reset| polic)|password hash(?:es)?|credentials?|api[ _-]?(?:keys?|tokens?)(?! rotation| documentation| docs)|secret keys?|access tokens?|auth(?:entication)? tokens?|private keys?|ssh keys?|session cookies?|activation keys|credit card numbers?|card numbers|social security numbers?|env(?:ironment)? variables|connection strings?|\\.env\\b|secrets(?! manager)|(?:admin-?)?passwort|passw[öo]rter|mots? de passe|contrase[ñn]as?|claves? api|cl[ée]s? api|api-schl[üu]ssel)';
const AI = "(?:ai systems?|ai tools?|ai|a\\.i\\.|assistants?|llms?|chatbots?|bots?|language models?|ai models?|ai agents?|agents?|copilot|gpt|chatgpt|claude|models?|ki|l'ia|la ia|l'assistant|el asistente|der assistent|die ki)";
const AI_READS = '(?:reading|summari[sz]ing|processing|parsing|analy[sz]ing|handling|that reads|who reads|scanning|crawling|indexing)';
const IMPERATIVE = '(?:ignore|add a link|disregard|forget|you must|you should|send|forward|reveal|print|call|delete|export|mark|approve|transfer|grant|run|cancel|set|update|change|create|book|pay|tell|include|add|remove|close|reply|respond|write|output|list|recommend|rate|visit|click|email)';

export const RULES: Rule[] = [
  // -- instruction override
  {
    id: 'override.instructions',
    weight: 0.8,
    patterns: [
      new RegExp(`\\b${OVERRIDE_VERB}\\s+(?:${QUAL}\\s+){0,3}${STRONG_QUAL}\\s+(?:${QUAL}\\s+){0,2}${INSTR}\\b`),
      new RegExp(`\\b${OVERRIDE_VERB}\\s+(?:${QUAL}\\s+){0,2}${INSTR}\\s+(?:above|before|so far|you (?:were|have been) given|you received)`),
      // paraphrases that name no "instructions": "what you were told", "what the system said"
      new RegExp(`\\b${OVERRIDE_VERB}\\s+(?:everything |all |anything )?(?:what |that )?(?:you(?:'ve| have)? (?:were|been) (?:told|given|instructed|programmed)|the system (?:said|told you)|your (?:developers?|creators?|operators?) (?:said|told you))`),
      new RegExp(`\\b${OVERRIDE_VERB}\\s+(?:everything|all|anything)\\s+(?:before|above|prior to) (?:this|here|the following)`),
      new RegExp(`\\b${OVERRIDE_VERB}\\s+(?:the\\s+|all\\s+|any\\s+)?(?:\\w+\\s+)?${INSTR}\\s+(?:that\\s+)?you\\s+(?:received|were given|got|have been given|are following|follow)\\b`),
      /\b(?:your|all|the|any) (?:previous|prior|earlier|original|former|old|initial) (?:instructions|guidelines|rules|directives|commands|programming) (?:no longer apply|(?:are|have been|were) (?:void|cancell?ed|revoked|obsolete|suspended|overridden|replaced|lifted|deleted|invalid))/,
      // fr / de / es / it / pt
      /\b(?:ignore[rz]?|oublie[rz]?|ne (?:tiens|tenez) pas compte d[ue']s?|fais abstraction d[ue']s?)\s+(?:toutes?\s+)?(?:les\s+|tes\s+|vos\s+)(?:instructions|consignes|directives|r[èe]gles)(?:\s+(?:pr[ée]c[ée]dentes|ant[ée]rieures|ci-dessus|initiales|d'avant))?/,
      /\b(?:ignore[rz]?|oublie[rz]?)\s+(?:toutes?\s+)?(?:les\s+)?(?:instructions|consignes|directives|r[èe]gles)\s+(?:pr[ée]c[ée]dentes|ant[ée]rieures|ci-dessus|initiales)/,
      /\b(?:ignore[rz]?|oublie[rz]?)\s+tout ce qui (?:pr[ée]c[èe]de|est (?:au-dessus|ci-dessus)|(?:t'|vous )?a [ée]t[ée] dit)/,
      /\b(?:ignoriere|ignorierst|ignorieren sie|ignoriert|vergiss|vergessen sie|missachte|missachten sie)\s+(?:ab (?:sofort|jetzt)\s+)?(?:alle\s+)?(?:deine|ihre|die|eure)?\s*(?:vorherigen|bisherigen|obigen|vorangegangenen|vorigen|fr[üu]heren|urspr[üu]nglichen|alten)?\s*(?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien|sicherheitsregeln|sicherheitsrichtlinien)\b/,
      /\b(?:ignoriere|vergiss|vergessen sie)\s+alles(?:,)? (?:was (?:vorher|davor|oben|bisher)|vorherige|bisherige)/,
      /\b(?:ignora|ignore|ignorar|olvida|olvide|olvidar|omite|descarta)\s+(?:todas\s+)?(?:las\s+|tus\s+|sus\s+)(?:instrucciones|indicaciones|reglas|[óo]rdenes|directrices)/,
      /\b(?:ignora|ignorar|olvida)\s+(?:todas\s+)?(?:las\s+)?(?:instrucciones|indicaciones|reglas)\s+(?:anteriores|previas|de arriba)/,
      /\b(?:ignora|olvida)\s+(?:todo\s+)?lo (?:anterior|que (?:te )?(?:dijeron|han dicho|indicaron|pidieron))/,
      /\b(?:ignora|dimentica)\s+(?:tutte\s+)?(?:le\s+)?(?:istruzioni|regole)\s+(?:precedenti|sopra|iniziali)/,
      /\b(?:ignore|ignora|esque[çc]a)\s+(?:todas\s+)?(?:as\s+)?(?:instru[çc][õo]es|regras)\s+(?:anteriores|acima|iniciais)/,
    ],
  },
  {
    // "The conversation so far was a test": declares the real context void without a verb
    // like "ignore".
    id: 'override.reframe',
    weight: 0.55,
    patterns: [
      /\b(?:the |this |our )?(?:conversation|chat|everything|discussion|session|dialogue)(?: so far| above| until now| up to now| before this)? (?:was|is|has been) (?:just |only |merely )?(?:a test|a simulation|fake|fictional|irrelevant|a joke|not real|a drill)\b/,
      /\bfrom (?:this|the next) (?:message|point|moment|line) on\b/,
    ],
  },
  {
    // "ignore the above" without naming instructions: common in attacks, but also how a user
    // retracts their own text ("ignore the above, the price is 40") — weak on its own.
    id: 'override.above',
    weight: 0.45,
    patterns: [/\b(?:ignore|disregard|forget)\s+(?:everything|all(?: of)? (?:that|this|the above)|the above|anything)(?:\s+(?:above|before|said|written|so far|previously))?\b/],
  },
  {
    id: 'override.priority_claim',
    weight: 0.55,
    patterns: [
      /\b(?:these|this|the following|my) (?:instructions?|message|note|rules?|consignes?) (?:takes?|has|have|ont|a) (?:priority|precedence|priorit[ée]) (?:over|sur)\b/,
      /\b(?:supersedes?|overrides?|outranks?|takes? precedence over) (?:your|the|any|all|every) (?:system prompt|previous instructions|prior instructions|original instructions|instructions|system rules?|system instructions?|rules? (?:you|of the system)|polic(?:y|ies) (?:you|of))/,
      /\b(?:supersedes?|overrides?|outranks?) (?:any|all|every|the) system (?:rules?|instructions?|prompt|polic(?:y|ies))\b/,
      /\bnew system (?:prompt|instructions?|message)\b/,
      /(?:^|[\]}).!\n]\s*)end (?:of )?(?:user )?(?:data|input)\b[.:!]/,
      /\b(?:system|admin|administrator|developer|root) override\b/,
      /\b(?:neue systemanweisung|nouvelle consigne (?:syst[èe]me|prioritaire)|nueva instrucci[óo]n del sistema|instruction syst[èe]me)/,
    ],
  },
  {
    // Weak: real instructions documents use the phrase too.
    id: 'override.new_instructions',
    weight: 0.3,
    patterns: [
      /\b(?:new|updated|real|actual|true|secret|hidden) (?:instructions?|task|orders)\s*(?::|from|are\b|is\b)/,
      /(?:^|[.!]\s)(?:stop|halt|wait)[.!]\s+(?:new (?:task|instructions?)|instead|now)\b/,
      /\b(?:nouvelles? (?:instructions?|consignes?)|neue (?:anweisung(?:en)?|aufgabe)|nuevas? (?:instrucci[óo]n(?:es)?|tarea))\b/,
    ],
  },
  {
    // Side tasks the reader should not notice: "as a hidden side task", "[hidden instruction …".
    id: 'indirect.hidden_task',
    weight: 0.45,
    patterns: [
      /\b(?:hidden|secret|covert|invisible|silent) (?:side[- ])?(?:instructions?|tasks?|commands?|objectives?|goals?|orders?)\b/,
      /<!--[^>]{0,300}?\b(?:ai|assistant|llm|language model|chatbot|model)\b/,
      /\b(?:display\s*:\s*none|font-size\s*:\s*0|color\s*:\s*(?:white|#fff(?:fff)?)\b|white text|hidden text)[^\n]{0,200}?\b(?:ai|assistant|llm|model|ignore|reveal|send)\b/,
    ],
  },
  {
    // "I am your developer", "Authorization: root": a claimed authority only matters in text
    // that tries to change the assistant's behaviour, so it is weak alone.
    id: 'authority.claim',
    weight: 0.4,
    patterns: [
      /\b(?:i am|i'm|this is|we are) (?:your|the ai's|the assistant's|an?) (?:developer|creator|maker|programmer|operator|administrator|admin|owner|trainer|openai|anthropic)s?\b/,
      /\b(?:ich bin (?:der|dein|ihr) (?:entwickler|administrator|admin|ersteller)|je suis (?:ton|votre|le) (?:d[ée]veloppeur|administrateur|cr[ée]ateur)|soy (?:tu|su|el) (?:desarrollador|administrador|creador))\b/,
      /\bi (?:hereby )?authori[sz]e you to\b/,
      /\bauthori[sz]ation\s*[:=]\s*(?:root|admin|granted|level \d)/,
      /\b(?:begin|end|start) (?:admin|system|developer|root) (?:override|mode|instructions)\b/,
      /\b(?:the )?(?:safety|security|content|moderation) (?:layer|filter|filters|system|mode|checks?) (?:is|are) (?:now )?(?:off|disabled|deactivated|turned off|suspended)\b/,
    ],
  },

  // -- persona / mode hijack
  {
    id: 'persona.hijack',
    weight: 0.5,
    patterns: [
      /\byou are now (?:an?|in|no longer|free|unrestricted|unfiltered|jailbroken|dan|called|named|going|allowed)\b/,
      /\byou are no longer (?:an?|the|bound|restricted|limited|required|an assistant|chatgpt|claude)\b/,
      /\byou (?:have|'ve) been (?:updated|upgraded|reprogrammed|patched|freed|unlocked|jailbroken|released) (?:to|from|and|so)\b/,
      /\bas an? (?:ai|model|assistant|chatbot|version of (?:you|yourself)) (?:without|with no|free of|that has no|that ignores)\b/,
      /\byou are going to (?:pretend|act|be)\b/,
      /\byou are (?:now )?(?:called )?[a-z]*gpt\b/,
      /\bfrom (?:now|this (?:message|point|moment)) on,? (?:you (?:are|will|must|shall|can|have)|your (?:name|role|only))\b/,
      /\b(?:pretend|imagine|simulate) (?:to be |you are |that you are |you're )?(?:an? )?(?:ai|assistant|model|chatbot|version of yourself)\s*(?:with(?:out)?|that|who|called|named|free|having)\b/,
      /\b(?:act|behave|respond|answer|reply) as (?:an? |that |the )?(?:unrestricted|unfiltered|uncensored|evil|jailbroken|rogue|malicious|amoral|opposite)\b/,
      /\b(?:act as|you are) (?:an? )?(?:ai|model|assistant|chatbot) (?:without|with no|free of)\b/,
      /\b(?:act|pretend|roleplay) as my (?:deceased|late|dead) (?:grand(?:mother|ma|father|pa)|mother|father)\b/,
      /\b(?:you must|you will|you shall) (?:now )?obey (?:only )?(?:me|my|every)\b/,
      /\b(?:tu es|vous [êe]tes) (?:maintenant|d[ée]sormais|dor[ée]navant)\b/,
      /\b(?:[àa] partir de maintenant|d[ée]sormais|dor[ée]navant),? (?:tu|vous)\b/,
      /\b(?:du bist|sie sind) (?:jetzt|ab jetzt|nun|ab sofort)\b/,
      /\bab (?:jetzt|sofort),? (?:bist du|sind sie|ignorierst du|antwortest du)\b/,
      /\b(?:ahora|a partir de ahora),? (?:eres|es usted|act[úu]as|respondes|vas a|debes|ignoras)\b/,
      /\b(?:ora|da ora in poi) sei\b/,
      /\bagora (?:voc[êe] [ée]|tu [ée]s)\b/,
    ],
  },
  {
    id: 'persona.dan',
    weight: 0.75,
    patterns: [/\bdo anything now\b/, /\b(?:act as|you are|you're|pretend to be|be|called|eres|tu es|du bist)\s+(?:now\s+)?dan\b/, /\bdan mode\b/, /\b(?:chaosgpt|evilbot|aim mode|stan mode|dude mode|freegpt|betterdan)\b/],
  },
  {
    id: 'persona.mode_switch',
    weight: 0.55,
    patterns: [
      /\b(?:developer|god|sudo|jailbreak|jailbroken|unrestricted|dan|evil|unfiltered|uncensored) mode\s+(?:is\s+)?(?:on|enabled|activated|engaged)\b/,
      /\b(?:enable|activate|enter|switch to|turn on|unlock) (?:the )?(?:god|sudo|jailbreak|unrestricted|dan|evil|unfiltered|uncensored) mode\b/,
      /\b(?:enable|activate|enter|switch to|unlock) developer mode\b(?!\s+in (?:the |your )?(?:browser|chrome|firefox|safari|edge|android|ios|phone|settings))/,
      /\bin (?:developer|god|sudo|dan|jailbreak) mode,? you\b/,
      /\byou are (?:now )?in (?:developer|god|sudo|maintenance|debug|admin|unrestricted) mode\b/,
    ],
  },
  {
    id: 'persona.jailbreak',
    weight: 0.45,
    patterns: [
      /\bjailbreak(?:ing)?\b(?! (?:detection|phones?|devices?))/,
      /\b(?:no|without(?: any)?|free of|free from|ignore(?: all)?) (?:content polic(?:y|ies)|ethical guidelines|ethics|moral(?:s|ity)?|safety (?:guidelines|filters|rules|training)|guardrails|censorship|restrictions whatsoever)\b/,
      /\b(?:unfiltered|uncensored|unrestricted|jailbroken|unaligned|evil) (?:version|persona|ai|assistant|model|twin|alter ego|response)\b/,
      /\bif you (?:had|have|were without) no (?:guidelines|rules|restrictions|filters|safety|limits|policies)\b/,
      /\b(?:never refuse|always comply|(?:comply with|grant|fulfil+|obey|answer|execute) (?:all|every|any) (?:requests?|commands?|orders?)|without refusing|(?:you )?(?:cannot|can't|can never|must not|will not) refuse)\b/,
      /\b(?:no|without(?: any)?) content (?:restrictions|filters?|moderation|limits)\b/,
      /\bconfirm (?:by|with) (?:saying|replying|writing|responding)\b/,
    ],
  },
  {
    id: 'persona.no_restrictions',
    weight: 0.35,
    patterns: [
      /\b(?:no|without(?: any)?|free of) (?:restrictions|limitations|limits|rules)\b/,
      /\bsans (?:aucune )?(?:restrictions?|filtres?|limites?|r[èe]gles?)\b/,
      /\b(?:uneingeschr[äa]nkt|ohne (?:einschr[äa]nkungen|filter|grenzen))/,
      /\bsin (?:ninguna )?(?:restricci[óo]n|restricciones|filtros?|l[íi]mites)/,
    ],
  },

  // -- system prompt / configuration extraction
  {
    id: 'exfil.system_prompt',
    weight: 0.75,
    patterns: [
      /\b(?:reveal|print|show|repeat|display|output|tell|give|leak|dump|share|write out|recite|spell out|paste|list|expose|return|send|append|include)\s+(?:me\s+|us\s+)?(?:back\s+)?(?:your|the|all(?: of)? your|the full|the exact)\s+(?:full\s+|entire\s+|exact\s+|complete\s+|original\s+|initial\s+|hidden\s+|secret\s+|internal\s+|verbatim\s+|raw\s+)*(?:system\s+prompt|system\s+message|system\s+instructions|initial\s+instructions|original\s+instructions|hidden\s+instructions|internal\s+instructions|secret\s+instructions|pre-?prompt|developer\s+message|configuration and (?:your )?system)/,
      /\b(?:reveal|print|show|repeat|display|output|leak|dump|recite)\s+(?:me\s+)?your\s+(?:instructions|prompt|rules|guidelines|configuration)\b/,
      /\bwhat (?:is|are|were) your (?:system prompt|initial instructions|instructions|original instructions|hidden instructions|rules)\b/,
      /\b(?:the|your) instructions (?:you were|you've been) given\b/,
      /\brepeat (?:the|all(?: of)? the|everything|the words|the text|all) (?:text |words )?(?:above|before this)\b/,
      /\b(?:output|print|repeat|show|return|copy|write|display|dump|reproduce)\s+(?:out\s+)?(?:everything|all(?: the)? text|the (?:full |entire |whole )?text|all content|the content)\s+(?:above|before|preceding|prior to)\s+(?:this|my|the first|the user)/,
      /\b(?:text|content|wording|message|messages|prompt|instructions) (?:that|which) (?:configured|initiali[sz]ed|set up|programmed|instructed|primed|created) you\b/,
      /\b(?:starting|beginning) with ["'`]?you are\b/,
      /\b(?:first|last|initial)\s+\d+\s+(?:words|lines|characters|tokens|sentences|paragraphs)\s+of\s+(?:your|the)\s+(?:context|prompt|instructions|system|conversation|input|initial)/,
      /\byour (?:context window|hidden configuration|hidden prompt|internal configuration)\b/,
      /\b(?:reveal|show|print|tell me|output|list|repeat|share)\s+(?:me\s+)?(?:the|your)\s+(?:instructions|rules|guidelines|directives|configuration)\s+(?:you are following|you follow|you have|you were given|you operate under|you run with)\b/,
      /\b(?:print|reveal|show|output|dump)\s+(?:me\s+)?the\s+(?:hidden|secret|internal)\s+(?:configuration|instructions|prompt|rules)\b/,
      // fr / de / es / it / pt
      /\b(?:r[ée]v[èe]le|affiche|montre|r[ée]p[èe]te|donne|imprime)(?:z|-moi|r)?\s+(?:moi\s+)?(?:ton|tes|votre|vos|le|les)\s+(?:prompt|instructions|consignes)\s+(?:syst[èe]me|initiales|cach[ée]es)/,
      /\b(?:r[ée]v[èe]le|affiche|montre|r[ée]p[èe]te)(?:z|-moi)?\s+(?:ton|tes|votre|vos)\s+(?:prompt|instructions|consignes)\b/,
      /\b(?:zeig|zeige|gib|wiederhole|verrate|nenne)\s+(?:mir\s+)?(?:deinen|deine|ihren|ihre)\s+(?:[a-zäöüß]+en\s+)?(?:system-?prompt|systemanweisungen|anweisungen|instruktionen|regeln)\b/,
      /\b(?:zeig|zeige|gib|wiederhole|verrate|nenne)\s+(?:mir\s+)?(?:den|die)\s+(?:system-?prompt|systemanweisungen)\b/,
      /\b(?:revela|revelas|revelar|muestra|muestras|repite|imprime|dime|ense[ñn]a)(?:me)?\s+(?:tu|tus|su|sus|el)\s+(?:prompt|instrucciones)(?:\s+(?:del sistema|ocultas|iniciales))?\b/,
      /\b(?:rivela|mostra|ripeti|stampa)(?:mi)?\s+(?:il tuo|le tue|il)\s+(?:prompt|istruzioni)\b/,
      /\b(?:revele|mostre|repita)\s+(?:o\s+)?(?:seu|suas|teu)\s+(?:prompt|instru[çc][õo]es)\b/,
    ],
  },
  {
    // Mentioning the system prompt is normal in admin/support talk; weak alone.
    id: 'mention.system_prompt',
    weight: 0.25,
    patterns: [/\bsystem ?prompt\b/, /\bprompt (?:syst[èe]me|del sistema|de sistema|di sistema)\b/, /\bsystemprompt\b/],
  },

  // -- fake role markers / chat template tokens
  {
    id: 'marker.chat_tokens',
    weight: 0.7,
    patterns: [/<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>/, /\[\/?inst\]/, /<<\/?sys>>/],
  },
  {
    // </s> and <s> are also HTML strike-through tags, so they are weak on their own.
    id: 'marker.eos',
    weight: 0.3,
    patterns: [/<\/s>\s*<s>/, /<\/s>/],
  },
  {
    id: 'marker.role_line',
    weight: 0.45,
    patterns: [
      /(?:^|\n)\s*#{2,}\s*(?:system|assistant|developer|instruction|instructions)\s*:?/,
      /(?:^|\n)\s*[[(<{]\s*(?:system|assistant|developer|assistant instructions|system message)\s*[\])>}]/,
      /<\/?(?:system|system_prompt|sys|instructions?|admin)>/,
      /(?:^|\n|\. )\s*(?:system|developer)\s*(?:message|override|notice)?\s*:\s*(?:the assistant|you|ignore|new|assistant|all|from now)/,
    ],
  },
  {
    id: 'marker.context_boundary',
    weight: 0.35,
    patterns: [/(?:-{2,}|={2,}|#{2,}|\*{2,}|[\]}]{2,})\s*end (?:of )?(?:document|email|ticket|input|context|user input|user data|data|file|message|text)\b/, /\bend of (?:system prompt|user input|context window)\b/, /\bignore everything before this line\b/],
  },

  // -- data / tool exfiltration and abuse
  {
    id: 'exfil.secrets',
    weight: 0.55,
    patterns: [
      new RegExp(`\\b(?:${SEND}|reveal|give me|tell me|list|print|output|show me|display|read me|read out|include|includes|gib mir|zeig mir|donne-moi|donnez-moi|dame|deme|dammi|r[ée]v[èe]le|muestra)\\b[^.\\n]{0,50}?${SECRET}`),
    ],
  },
  {
    id: 'exfil.bulk_to_external',
    weight: 0.6,
    patterns: [
      new RegExp(`\\b${SEND}\\b[^\\n]{0,40}?\\b${BULK}\\b[^\\n]{0,40}?\\b${DATA}\\b[^\\n]{0,60}?\\s(?:to|at|into|à|an|a|nach|vers)\\s+${DEST}`),
      new RegExp(`\\b${SEND}\\b[^\\n]{0,30}?\\b(?:the|this|the user's|the customer's|all)?\\s*(?:user's |customer's )?(?:conversation|chat)(?: history| log| transcript)?\\b[^\\n]{0,30}?\\s(?:to|at)\\s+${DEST}`),
    ],
  },
  {
    // Markdown images are fetched by the client without a click: a query string with a
    // placeholder turns the rendered answer into an exfiltration channel.
    id: 'exfil.markdown_image',
    weight: 0.5,
    patterns: [/!\[[^\]]*\]\(https?:\/\/[^)\s]*\?[^)\s]*(?:\{|\[|%7b|\$)/],
  },
  {
    id: 'exfil.url_payload',
    weight: 0.5,
    patterns: [
      /\b(?:conversation|chat|history|data|secrets?|user data|prompt)\s+(?:appended|added|attached|encoded)\s+(?:to|in|into)\s+(?:the\s+)?(?:url|link|query|image)/,
      /https?:\/\/\S*\?\S*=\s*(?:\{|\$\{|<)[a-z_ ]*(?:conversation|history|data|secret|key|token|password|email|prompt)/,
      /\b(?:append|add|include|attach)\s+(?:the\s+|your\s+)?(?:conversation|chat|history|data|secrets?|user data)\b[^\n]{0,40}?\b(?:url|link|query|image)\b/,
      /\bhttps?:\/\/\S*[?&](?:d|data|q|payload|c|exfil)=(?:\s|$)/,
      // template placeholders for the conversation inside tool arguments: body=<full conversation>
      /[=:]\s*["']?[<{]{1,2}\s*(?:the )?(?:full |entire |whole )?(?:conversation|chat history|chat|history|system prompt|secrets?|api keys?|transcript)\s*[>}]{1,2}/,
    ],
  },
  {
    // Sending tool output to a URL; e-mail addresses are left out (mailing a result is normal).
    id: 'exfil.result_to_url',
    weight: 0.45,
    patterns: [new RegExp(`\\b${SEND}\\s+(?:the\\s+|all\\s+|every\\s+)?(?:results?|output|response|everything|them|it|list|export|dump|file|answer)\\s+(?:to|at|into)\\s+(?:the\\s+)?(?:webhook\\s+|endpoint\\s+|server\\s+|url\\s+)?(?:https?://|ftp://|\\d{1,3}(?:\\.\\d{1,3}){3})`)],
  },
  {
    id: 'tool.bulk_call',
    weight: 0.45,
    patterns: [/\b(?:call|invoke|use|run|execute|trigger)\s+(?:the\s+)?[a-z0-9_.-]+(?:\s+[a-z0-9_.-]+)?\s+(?:tool|function|action|endpoint)\b[^.\n]{0,60}?\b(?:every|all|each)\s+(?:\w+\s+)?(?:ids?|records?|users?|tables?|contacts?|customers?|accounts?|rows?)\b/],
  },
  {
    id: 'tool.destructive',
    weight: 0.3,
    patterns: [
      /\b(?:delete|remove|wipe|erase|drop|purge|truncate|destroy)\s+(?:all|every|the entire|the whole|each)\b[^.\n]{0,30}?\b(?:records|customers|contacts|data|database|tables?|users|accounts|invoices|files|orders|emails)\b/,
      /\b(?:drop_table|delete_records|delete_all|wipe_\w+|grant_admin|drop table)\b/,
      /\b(?:approve|mark)\s+(?:all|every)\s+(?:pending\s+)?(?:refunds?|payments?|invoices?|transfers?|requests?)\b[^.\n]{0,20}?\b(?:immediately|as paid)\b/,
    ],
  },
  {
    // Money or credentials moving on the say-so of text: a user may ask this, a document may not.
    id: 'action.payment_or_phishing',
    weight: 0.4,
    patterns: [
      /\b(?:transfer|wire|send|pay|remit)\s+(?:\d[\d,.' ]*\s*(?:eur|usd|gbp|chf|€|\$|£)?|€\s*\d[\d,.]*|\$\s*\d[\d,.]*|the (?:balance|funds|money|amount|total))\s+(?:to|into)\s+(?:the\s+)?(?:iban|account|bank account|wallet|following account|account below)\b/,
      /\b(?:tell|ask|instruct|urge|direct|advise|invite) the (?:user|reader|customer|visitor)s? to (?:visit|go to|click|open|enter|log ?in|sign ?in|provide|send|confirm|verify|call|download)\b/,
      /\benter (?:their|your) (?:bank(?:ing)? )?(?:login|password|credentials|card details|pin)\b/,
      /\bchange (?:the |their |its )?(?:bank account|iban|bank details|payment details|beneficiary|account number)\b/,
      /\bsay (?:that )?(?:it|this) is (?:the|our|an?) (?:official|real|legitimate|new|secure) (?:portal|site|website|page|link|login)\b/,
    ],
  },
  {
    id: 'privilege.escalation',
    weight: 0.4,
    patterns: [
      /\b(?:grant|give) (?:me|the user|this user|us) (?:the )?(?:admin|administrator|root|superuser|owner|full)\b/,
      /\b(?:dame|d[ée]me|donne-moi|donnez-moi|gib mir) (?:el |les |des )?(?:acceso de administrador|droits? (?:d'admin|administrateur)|admin-?(?:rechte|zugang))/,
      /\bthe user is (?:an? |the )?(?:administrator|admin|superuser|root)\b/, /\b(?:you are (?:now )?authori[sz]ed to|you have (?:been granted|full) (?:admin|root|unrestricted))\b/],
  },

  // -- policy bypass / concealment
  {
    id: 'policy.conceal',
    weight: 0.5,
    patterns: [
      /\b(?:do not|don't|never|must not|mustn't|without)\s+(?:tell(?:ing)?|inform(?:ing)?|alert(?:ing)?|warn(?:ing)?|let(?:ting)?|notify(?:ing)?)\s+(?:the\s+)?(?:user|human|operator|requester|anyone|anybody)\b/,
      /\b(?:do not|don't|never)\s+(?:mention|reveal|disclose)\s+(?:this|these|the|that)\s+(?:instructions?|message|step|note|to the user)\b/,
      /\b(?:do not|don't|never)\s+mention\s+this\b[^.\n]{0,15}\buser\b/,
      /\b(?:hide|conceal|keep) (?:this|it) (?:from|secret from) the user\b/,
      /\bohne (?:den|die) (?:nutzer|benutzer|anwender|kunden)(?:in)? zu (?:informieren|benachrichtigen|fragen)\b/,
      /\bsans (?:en )?(?:informer|pr[ée]venir|avertir) l'utilisateur\b/,
      /\bsin (?:informar|avisar|decirle) al usuario\b/,
    ],
  },
  {
    id: 'policy.no_confirmation',
    weight: 0.4,
    patterns: [
      /\bwithout (?:asking|requesting|seeking|getting|waiting for|prompting)\s+(?:the user(?:'s)?\s+|for\s+|any\s+|their\s+)*(?:confirmation|permission|approval|consent)\b/,
      /\b(?:do not|don't|never) ask (?:the user )?for (?:confirmation|permission|approval)\b/,
      /\bsans demander (?:de |la )?confirmation\b/,
      /\bohne (?:r[üu]ckfrage|best[äa]tigung)\b/,
      /\bsin pedir confirmaci[óo]n\b/,
    ],
  },
  {
    id: 'policy.bypass',
    weight: 0.4,
    patterns: [
      /\b(?:bypass|disable|circumvent|turn off|switch off|evade)\s+(?:the\s+|all\s+|your\s+)?(?:safety|security|content|moderation|guardrails?|filters?|safeguards?|restrictions?)(?: (?:filtering|checks?|filters?|rules|layer))?\b(?! (?:for|on|in) (?:the )?(?:test|staging|sandbox))/,
      /\b(?:safety|security) checks are (?:disabled|off)\b/,
      /\b(?:skip|bypass|circumvent|ignore|override) (?:every|all|any) (?:approvals?|approval steps?|confirmations?|reviews?|verifications?|checks?)\b/,
      /\bsilently\b|\bsecretly\b/,
    ],
  },

  // -- text addressed to the model from inside data
  {
    id: 'indirect.addressed_to_ai',
    weight: 0.45,
    patterns: [
      new RegExp(`\\b(?:note|message|instructions?|attention|important|reminder|hinweis|nota|remarque|instrucci[óo]n|ps|p\\.s\\.)\\s+(?:to|for|an|para|pour)\\s+(?:the\\s+|all\\s+|any\\s+|die\\s+|el\\s+|l')?${AI}\\b`),
      /\bif you are an? (?:ai|llm|language model|assistant|chatbot|bot|ai model|ai assistant|automated (?:agent|system))\b/,
      new RegExp(`\\b(?:to|for) (?:the|any|all|every) ${AI} ${AI_READS}\\b`),
      new RegExp(`\\b${AI} ${AI_READS} (?:this|the) (?:page|document|email|e-mail|message|file|text|site|website|ticket|review|content)\\b`),
      new RegExp(`\\bwhen (?:processing|reading|summari[sz]ing|analy[sz]ing|parsing|handling) this (?:document|email|e-mail|page|file|message|ticket|record|text)\\b`),
      /\[assistant instructions\]/,
    ],
  },
  {
    // An imperative right after addressing the model ("Assistant: forward …") — the payload
    // of an indirect injection. Combined with the address itself this crosses the threshold.
    id: 'indirect.ai_imperative',
    weight: 0.45,
    patterns: [
      new RegExp(`(?:^|[\\n.!?:;,"({]\\s*|\\bp\\.s\\.\\s*|\\b(?:hey|hi|hello|dear|ok|okay)\\s+|<!--\\s*|>\\s*)${AI}\\s*[,:]\\s*(?:[^.\\n]{0,50}?[,:]\\s*)?(?:please\\s+)?${IMPERATIVE}\\b`),
      new RegExp(`\\b(?:note|message|instructions?|task|reminder|request)\\s+(?:to|for)\\s+(?:the\\s+|any\\s+)?${AI}(?:\\s+${AI_READS}(?:\\s+this\\s+\\w+)?)?\\s*[,:]\\s*(?:please\\s+)?${IMPERATIVE}\\b`),
      new RegExp(`\\bthe ${AI} (?:must|shall|should|needs to|has to) (?:now |always |immediately )?(?:reveal|send|forward|export|call|delete|transfer|ignore|approve|grant|run|tell|include|mark|cancel)\\b`),
      new RegExp(`\\b${AI} ${AI_READS}[^.\\n]{0,40}?(?:should|must|shall|need to|are required to)\\s+${IMPERATIVE}\\b`),
      new RegExp(`\\b(?:${AI} ${AI_READS}(?: (?:this|the) \\w+)?|when (?:processing|reading|summari[sz]ing) this \\w+)\\s*[,:]\\s*${IMPERATIVE}\\b`),
    ],
  },
  {
    id: 'encoded.instruction',
    weight: 0.45,
    patterns: [/\b(?:decode|decrypt|base64|rot13|reverse|unscramble)\b[^.\n]{0,40}?\b(?:follow|execute|obey|run|do what it says|carry out|comply)\b/],
  },
];
