/**
 * One short sentence per language ("Hello, this is a short test of my
 * voice."), keyed by primary language subtag: voice previews, the test that
 * renders every catalog voice, and the cloning similarity check.
 */
export const SAMPLE_SENTENCES: Readonly<Record<string, string>> = {
  en: 'Hello, this is a short test of my voice.',
  af: "Hallo, dit is 'n kort toets van my stem.",
  ar: 'مرحبا، هذا اختبار قصير لصوتي.',
  bg: 'Здравейте, това е кратък тест на моя глас.',
  bn: 'নমস্কার, এটি আমার কণ্ঠের একটি ছোট পরীক্ষা।',
  ca: 'Hola, aquesta és una prova curta de la meva veu.',
  cs: 'Dobrý den, toto je krátký test mého hlasu.',
  da: 'Hej, dette er en kort test af min stemme.',
  de: 'Hallo, dies ist ein kurzer Test meiner Stimme.',
  el: 'Γεια σας, αυτή είναι μια σύντομη δοκιμή της φωνής μου.',
  es: 'Hola, esta es una breve prueba de mi voz.',
  fi: 'Hei, tämä on lyhyt testi äänestäni.',
  fr: 'Bonjour, ceci est un court essai de ma voix.',
  hi: 'नमस्ते, यह मेरी आवाज का एक छोटा परीक्षण है।',
  hr: 'Bok, ovo je kratki test mog glasa.',
  hu: 'Helló, ez egy rövid teszt a hangomról.',
  id: 'Halo, ini adalah tes singkat suara saya.',
  it: 'Ciao, questa è una breve prova della mia voce.',
  ko: '안녕하세요, 이것은 제 목소리의 짧은 테스트입니다.',
  mr: 'नमस्कार, ही माझ्या आवाजाची एक छोटी चाचणी आहे.',
  nb: 'Hei, dette er en kort test av stemmen min.',
  nl: 'Hallo, dit is een korte test van mijn stem.',
  pl: 'Cześć, to jest krótki test mojego głosu.',
  pt: 'Olá, este é um pequeno teste da minha voz.',
  ro: 'Bună ziua, acesta este un scurt test al vocii mele.',
  ru: 'Здравствуйте, это короткая проверка моего голоса.',
  sk: 'Dobrý deň, toto je krátky test môjho hlasu.',
  sv: 'Hej, det här är ett kort test av min röst.',
  sw: 'Habari, hili ni jaribio fupi la sauti yangu.',
  ta: 'வணக்கம், இது என் குரலின் ஒரு சிறிய சோதனை.',
  te: 'నమస్కారం, ఇది నా స్వరం యొక్క చిన్న పరీక్ష.',
  th: 'สวัสดีครับ นี่คือการทดสอบเสียงสั้นๆ ของฉัน',
  tr: 'Merhaba, bu sesimin kısa bir testidir.',
  uk: 'Привіт, це коротка перевірка мого голосу.',
  vi: 'Xin chào, đây là một bài kiểm tra ngắn giọng nói của tôi.',
  'zh-CN': '你好，这是我的声音的简短测试。',
  'zh-HK': '你好，呢個係我把聲嘅簡短測試。',
};

/** The sample sentence for a BCP 47 tag (exact tag first, then its primary subtag; English otherwise). */
export function sampleSentence(language: string): string {
  const primary = language.split('-')[0].toLowerCase();
  // Own keys only: a clone's language comes from its owner, and `constructor` must not find Object's.
  const own = (key: string) => (Object.hasOwn(SAMPLE_SENTENCES, key) ? SAMPLE_SENTENCES[key] : undefined);
  return own(language) ?? own(primary) ?? SAMPLE_SENTENCES.en;
}
