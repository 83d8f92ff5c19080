/**
 * The contract's error table, one row per code: the HTTP status the gateway
 * answers it with, what it means in one line (the ErrorCode component of the
 * OpenAPI document and every error answer's description say it, so /docs and
 * generated clients show it beside the code), one example answer (its
 * message as the gateway words it, and the fields it carries), and its
 * `user_message`: the sentence a mobile app may show its user, in each
 * language the gateway speaks. The contract's Errors table and
 * docs/reference.md's are the source.
 *
 * The user messages are written for a card holder: what happened and what
 * to do, never a field name, a code or a number. Uzbek in Latin script
 * spells oʻ and gʻ with U+02BB (ʻ) and the tutuq belgisi with U+02BC (ʼ), as
 * the alphabet prescribes; test/unit/user-messages.test.ts holds every text
 * to these rules.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { EXAMPLE_RECEIPT_ID, EXAMPLE_REQUEST_ID } from "../api/examples";

/** The languages of `user_message`, as Content-Language names them; the first is the default. */
export const LANGUAGES = ["en", "uz", "uz-Cyrl", "ru"] as const;
export type Language = (typeof LANGUAGES)[number];

/** One sentence for the user, in every language: a missing one is a compile error. */
export type UserMessage = Readonly<Record<Language, string>>;

interface ErrorCodeRow {
  status: ContentfulStatusCode;
  meaning: string;
  example: { message: string; [field: string]: unknown };
  user_message: UserMessage;
}

/** A request the app got wrong: nothing the user can fix but wait or ask for help. */
const APP_ERROR: UserMessage = {
  en: "Something went wrong in the app. Please try again later or contact support.",
  uz: "Ilovada xatolik yuz berdi. Keyinroq qayta urinib koʻring yoki qoʻllab-quvvatlash xizmatiga murojaat qiling.",
  "uz-Cyrl": "Иловада хатолик юз берди. Кейинроқ қайта уриниб кўринг ёки қўллаб-қувватлаш хизматига мурожаат қилинг.",
  ru: "В приложении произошла ошибка. Попробуйте позже или обратитесь в службу поддержки.",
};

/**
 * The outcome of a money move is not known yet (upstream_error,
 * upstream_timeout): the payment may have gone through, the gateway is
 * checking it, and paying again now could pay twice. Never "failed" or
 * "cancelled": nobody knows that. test/unit/user-messages.test.ts holds
 * both texts to it in every language.
 */
const MAY_HAVE_GONE_THROUGH = {
  en: "The payment may have gone through: we are checking it. Do not pay again; check the payment status in a few minutes.",
  uz: "Toʻlov amalga oshgan boʻlishi mumkin: biz uni tekshiryapmiz. Qayta toʻlamang, bir necha daqiqadan soʻng toʻlov holatini tekshiring.",
  "uz-Cyrl": "Тўлов амалга ошган бўлиши мумкин: биз уни текширяпмиз. Қайта тўламанг, бир неча дақиқадан сўнг тўлов ҳолатини текширинг.",
  ru: "Платёж мог пройти: мы его проверяем. Не оплачивайте повторно, проверьте статус платежа через несколько минут.",
} as const;

/**
 * Why a card was declined (`decline_reason` of card_declined, as
 * src/upstream/client.ts maps the payment service's codes), each with the
 * text card_declined's `user_message` carries for it. A reason not listed
 * here is a compile error where a failure names it.
 */
export const DECLINE_REASONS = {
  insufficient_funds: {
    en: "There is not enough money on the card. Top up the card or use another one.",
    uz: "Kartada mablagʻ yetarli emas. Kartani toʻldiring yoki boshqa kartadan foydalaning.",
    "uz-Cyrl": "Картада маблағ етарли эмас. Картани тўлдиринг ёки бошқа картадан фойдаланинг.",
    ru: "Недостаточно средств на карте. Пополните карту или используйте другую.",
  },
  receiver_unavailable: {
    en: "The recipient's card cannot accept this transfer. Check the card number or send the transfer to another card.",
    uz: "Qabul qiluvchining kartasi bu oʻtkazmani qabul qila olmaydi. Karta raqamini tekshiring yoki oʻtkazmani boshqa kartaga yuboring.",
    "uz-Cyrl": "Қабул қилувчининг картаси бу ўтказмани қабул қила олмайди. Карта рақамини текширинг ёки ўтказмани бошқа картага юборинг.",
    ru: "Карта получателя не может принять этот перевод. Проверьте номер карты или отправьте перевод на другую карту.",
  },
  declined: {
    en: "The bank declined this operation with the card. Please use another card or contact your bank.",
    uz: "Bank bu karta boʻyicha amalni rad etdi. Boshqa kartadan foydalaning yoki bankingizga murojaat qiling.",
    "uz-Cyrl": "Банк бу карта бўйича амални рад этди. Бошқа картадан фойдаланинг ёки банкингизга мурожаат қилинг.",
    ru: "Банк отклонил операцию по этой карте. Используйте другую карту или обратитесь в свой банк.",
  },
} as const satisfies Record<string, UserMessage>;

export type DeclineReason = keyof typeof DECLINE_REASONS;

/** Every decline reason, in the table's order. */
export const DECLINE_REASON_NAMES = Object.keys(DECLINE_REASONS) as DeclineReason[];

export const ERROR_CODES = {
  invalid_json: {
    status: 400,
    meaning: "The body does not parse as JSON.",
    example: { message: "The request body is not valid JSON at line 2, column 18." },
    user_message: APP_ERROR,
  },
  invalid_request: {
    status: 400,
    meaning:
      "A field is missing, of the wrong type, out of its rule or not one the operation defines; or an unknown merchant or rate (`details` lists what).",
    example: {
      message: "The request body does not match the schema.",
      details: [{ path: "amount", message: "amount must be an integer number of tiyin" }],
    },
    user_message: {
      en: "Some of the details could not be accepted. Please check what you entered and try again, or contact support if it happens again.",
      uz: "Baʼzi maʼlumotlar qabul qilinmadi. Kiritilgan maʼlumotlarni tekshirib, qayta urinib koʻring. Xatolik takrorlansa, qoʻllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl":
        "Баъзи маълумотлар қабул қилинмади. Киритилган маълумотларни текшириб, қайта уриниб кўринг. Хатолик такрорланса, қўллаб-қувватлаш хизматига мурожаат қилинг.",
      ru: "Некоторые данные не приняты. Проверьте введённые данные и попробуйте ещё раз. Если ошибка повторится, обратитесь в службу поддержки.",
    },
  },
  otp_required: {
    status: 400,
    meaning: "Pay without an OTP where one is needed; not a guess.",
    example: { message: "This payment needs the OTP sent to the card owner (authorize first)." },
    user_message: {
      en: "Enter the confirmation code from the SMS to complete the payment.",
      uz: "Toʻlovni yakunlash uchun SMS orqali kelgan tasdiqlash kodini kiriting.",
      "uz-Cyrl": "Тўловни якунлаш учун SMS орқали келган тасдиқлаш кодини киритинг.",
      ru: "Чтобы завершить платёж, введите код подтверждения из SMS.",
    },
  },
  unauthorized: {
    status: 401,
    meaning: "No credentials, or ones that do not verify (`WWW-Authenticate`).",
    example: { message: "Send Authorization: Bearer <partner server key or user JWT>." },
    user_message: {
      en: "Your sign-in could not be confirmed. Please sign in to the app again.",
      uz: "Kirishingizni tasdiqlab boʻlmadi. Iltimos, ilovaga qaytadan kiring.",
      "uz-Cyrl": "Киришингизни тасдиқлаб бўлмади. Илтимос, иловага қайтадан киринг.",
      ru: "Не удалось подтвердить вход. Пожалуйста, войдите в приложение заново.",
    },
  },
  card_declined: {
    status: 402,
    meaning: "The card was declined; `decline_reason` says why.",
    example: { message: "Card declined: insufficient funds.", decline_reason: "insufficient_funds", upstream_code: "INSUFFICIENT_FUNDS" },
    user_message: {
      en: "Your card was declined. Please use another card or contact your bank.",
      uz: "Karta rad etildi. Boshqa kartadan foydalaning yoki bankingizga murojaat qiling.",
      "uz-Cyrl": "Карта рад этилди. Бошқа картадан фойдаланинг ёки банкингизга мурожаат қилинг.",
      ru: "Карта отклонена. Используйте другую карту или обратитесь в свой банк.",
    },
  },
  forbidden: {
    status: 403,
    meaning: "The caller may not do this: a user on a partner-only operation, or the service refuses the partner this cancel.",
    example: { message: "This operation is for the partner backend's server key; users may not call it." },
    user_message: {
      en: "This action is not available to you. Please contact support.",
      uz: "Bu amalni bajarishga ruxsat yoʻq. Qoʻllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "Бу амални бажаришга рухсат йўқ. Қўллаб-қувватлаш хизматига мурожаат қилинг.",
      ru: "Это действие вам недоступно. Обратитесь в службу поддержки.",
    },
  },
  hold_not_enabled: {
    status: 403,
    meaning: "A create with `is_hold`, or hold-confirm, where the deployment has no hold function.",
    example: { message: "The hold function is not enabled in this deployment." },
    user_message: {
      en: "This type of payment is not available. Please contact support.",
      uz: "Bu turdagi toʻlov mavjud emas. Qoʻllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "Бу турдаги тўлов мавжуд эмас. Қўллаб-қувватлаш хизматига мурожаат қилинг.",
      ru: "Этот вид платежа недоступен. Обратитесь в службу поддержки.",
    },
  },
  receipt_not_found: {
    status: 404,
    meaning: "No such receipt, transfer or tid for this caller (another user's looks the same).",
    example: { message: "No such receipt." },
    user_message: {
      en: "This payment was not found. Please start the payment again.",
      uz: "Toʻlov topilmadi. Iltimos, toʻlovni qaytadan boshlang.",
      "uz-Cyrl": "Тўлов топилмади. Илтимос, тўловни қайтадан бошланг.",
      ru: "Платёж не найден. Пожалуйста, начните оплату заново.",
    },
  },
  not_found: {
    status: 404,
    meaning: "No such path, or no such event id.",
    example: { message: "No event with this id." },
    user_message: APP_ERROR,
  },
  method_not_allowed: {
    status: 405,
    meaning: "Another method than the path answers (`Allow` names it).",
    example: { message: "Partner operations are POST requests with a JSON body; GET is not allowed." },
    user_message: APP_ERROR,
  },
  tid_conflict: {
    status: 409,
    meaning:
      "The tid is taken by a different body or the other kind, or its stored answer is older than 7 days (the message names the receipt to read).",
    example: {
      message: `This tid already created receipt ${EXAMPLE_RECEIPT_ID} with another body: read it with check-id or check-tid, or create with a new tid.`,
    },
    user_message: {
      en: "This payment already exists with different details. Check your payment history before paying again, or contact support.",
      uz: "Bu toʻlov boshqa maʼlumotlar bilan allaqachon mavjud. Qayta toʻlashdan oldin toʻlovlar tarixini tekshiring yoki qoʻllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl":
        "Бу тўлов бошқа маълумотлар билан аллақачон мавжуд. Қайта тўлашдан олдин тўловлар тарихини текширинг ёки қўллаб-қувватлаш хизматига мурожаат қилинг.",
      ru: "Этот платёж уже существует с другими данными. Прежде чем платить снова, проверьте историю платежей или обратитесь в службу поддержки.",
    },
  },
  tid_in_progress: {
    status: 409,
    meaning: "A create with this tid is still running; retry after `Retry-After`.",
    example: { message: "The create with this tid is still in flight." },
    user_message: {
      en: "This payment is still being created. Please wait a moment and try again.",
      uz: "Toʻlov hali yaratilmoqda. Biroz kutib, qayta urinib koʻring.",
      "uz-Cyrl": "Тўлов ҳали яратилмоқда. Бироз кутиб, қайта уриниб кўринг.",
      ru: "Платёж ещё создаётся. Подождите немного и попробуйте снова.",
    },
  },
  idempotency_key_reused: {
    status: 409,
    meaning: "This Idempotency-Key was used by the same caller for this operation on this record with another body (rule 11): use a new key.",
    example: { message: "This Idempotency-Key was used for another request on this receipt; use a new key for a new request." },
    user_message: APP_ERROR,
  },
  operation_in_progress: {
    status: 409,
    meaning: "Another operation on this receipt or transfer is running; retry after `Retry-After`.",
    example: { message: "Another operation is in flight for this receipt." },
    user_message: {
      en: "This payment is already being processed. Please wait a moment and check its status before trying again.",
      uz: "Bu toʻlov hozir amalga oshirilmoqda. Biroz kuting va qayta urinishdan oldin uning holatini tekshiring.",
      "uz-Cyrl": "Бу тўлов ҳозир амалга оширилмоқда. Бироз кутинг ва қайта уринишдан олдин унинг ҳолатини текширинг.",
      ru: "Этот платёж уже обрабатывается. Подождите немного и проверьте его статус, прежде чем повторять.",
    },
  },
  receipt_cancelled: {
    status: 409,
    meaning: "The receipt or transfer is cancelled.",
    example: { message: "The receipt is cancelled.", upstream_code: "RECEIPT_CANCELLED" },
    user_message: {
      en: "This payment has been cancelled. If needed, start a new payment.",
      uz: "Bu toʻlov bekor qilingan. Kerak boʻlsa, yangi toʻlovni boshlang.",
      "uz-Cyrl": "Бу тўлов бекор қилинган. Керак бўлса, янги тўловни бошланг.",
      ru: "Этот платёж отменён. При необходимости начните новый платёж.",
    },
  },
  receipt_already_paid: {
    status: 409,
    meaning: "Pay of a receipt that is paid, held or awaiting the supplier.",
    example: { message: "The receipt is already paid.", upstream_code: "RECEIPT_ALREADY_PAID" },
    user_message: {
      en: "This payment has already been made. There is no need to pay again.",
      uz: "Bu toʻlov allaqachon amalga oshirilgan. Qayta toʻlash shart emas.",
      "uz-Cyrl": "Бу тўлов аллақачон амалга оширилган. Қайта тўлаш шарт эмас.",
      ru: "Этот платёж уже проведён. Повторно оплачивать не нужно.",
    },
  },
  receipt_not_held: {
    status: 409,
    meaning: "Hold-confirm of a receipt that holds nothing.",
    example: { message: "The receipt holds no amount to confirm.", upstream_code: "RECEIPT_NOT_HELD" },
    user_message: {
      en: "There is no reserved amount to confirm for this payment. Please contact support.",
      uz: "Bu toʻlov boʻyicha tasdiqlanadigan band qilingan summa yoʻq. Qoʻllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "Бу тўлов бўйича тасдиқланадиган банд қилинган сумма йўқ. Қўллаб-қувватлаш хизматига мурожаат қилинг.",
      ru: "По этому платежу нет заблокированной суммы для подтверждения. Обратитесь в службу поддержки.",
    },
  },
  cancel_not_allowed: {
    status: 409,
    meaning: "Cancel in state 21 or 57, or for a QR merchant.",
    example: { message: "The payment service refuses to cancel this receipt.", upstream_code: "CANCEL_NOT_ALLOWED" },
    user_message: {
      en: "This payment can no longer be cancelled. Please contact support.",
      uz: "Bu toʻlovni endi bekor qilib boʻlmaydi. Qoʻllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "Бу тўловни энди бекор қилиб бўлмайди. Қўллаб-қувватлаш хизматига мурожаат қилинг.",
      ru: "Этот платёж уже нельзя отменить. Обратитесь в службу поддержки.",
    },
  },
  otp_attempts_exhausted: {
    status: 409,
    meaning: "The third failed OTP guess; every later pay of a transfer it closed answers this too.",
    example: {
      message:
        "Three wrong OTPs: the receipt is closed and takes no further code; the gateway cancels it with the payment service. Create a new receipt.",
    },
    user_message: {
      en: "The confirmation code has been tried too many times, so this payment can no longer be completed. Please start a new payment.",
      uz: "Tasdiqlash kodi juda koʻp marta kiritildi, shu sababli bu toʻlovni endi yakunlab boʻlmaydi. Yangi toʻlovni boshlang.",
      "uz-Cyrl": "Тасдиқлаш коди жуда кўп марта киритилди, шу сабабли бу тўловни энди якунлаб бўлмайди. Янги тўловни бошланг.",
      ru: "Код подтверждения вводился слишком много раз, поэтому этот платёж больше нельзя завершить. Начните новый платёж.",
    },
  },
  receipt_expired: {
    status: 409,
    meaning:
      "Rule 12: the receipt or transfer expired (unpaid `RECEIPT_EXPIRY_HOURS` after its creation, or held and not confirmed within `HOLD_EXPIRY_DAYS`) and the gateway cancelled it or closed it at the edge; every operation on it but a read answers this. Create a new one.",
    example: { message: "The receipt expired unpaid and is cancelled; create a new one." },
    user_message: {
      en: "The time allowed for this payment has run out, so it can no longer be completed. Please start a new payment.",
      uz: "Bu toʻlov uchun ajratilgan vaqt tugadi, shu sababli uni endi yakunlab boʻlmaydi. Yangi toʻlovni boshlang.",
      "uz-Cyrl": "Бу тўлов учун ажратилган вақт тугади, шу сабабли уни энди якунлаб бўлмайди. Янги тўловни бошланг.",
      ru: "Время, отведённое на этот платёж, истекло, поэтому его больше нельзя завершить. Начните новый платёж.",
    },
  },
  otp_expired: {
    status: 409,
    meaning: "No OTP was sent for this receipt, or it expired: call authorize again. Not a guess.",
    example: { message: "No OTP was sent for this receipt, or it expired: call authorize again. This did not count as a guess." },
    user_message: {
      en: "The confirmation code has expired or was not sent. Please request a new code.",
      uz: "Tasdiqlash kodining muddati tugagan yoki kod yuborilmagan. Yangi kod soʻrang.",
      "uz-Cyrl": "Тасдиқлаш кодининг муддати тугаган ёки код юборилмаган. Янги код сўранг.",
      ru: "Срок действия кода подтверждения истёк, или код не был отправлен. Запросите новый код.",
    },
  },
  payload_too_large: {
    status: 413,
    meaning: "A body over 16 KiB.",
    example: { message: "Request bodies are limited to 16 KiB." },
    user_message: APP_ERROR,
  },
  unsupported_media_type: {
    status: 415,
    meaning: "A body that is not `application/json`.",
    example: { message: "Send the request body as JSON, with Content-Type: application/json." },
    user_message: APP_ERROR,
  },
  otp_invalid: {
    status: 422,
    meaning: "A wrong OTP; `attempts_left` says how many guesses remain.",
    example: { message: "The OTP is wrong.", attempts_left: 2, upstream_code: "OTP_INVALID" },
    user_message: {
      en: "The confirmation code is incorrect. Check the SMS and enter the code again.",
      uz: "Tasdiqlash kodi notoʻgʻri. SMSni tekshirib, kodni qayta kiriting.",
      "uz-Cyrl": "Тасдиқлаш коди нотўғри. SMSни текшириб, кодни қайта киритинг.",
      ru: "Неверный код подтверждения. Проверьте SMS и введите код ещё раз.",
    },
  },
  amount_out_of_range: {
    status: 422,
    meaning: "The amount is outside the merchant's limits (`min_amount`, `max_amount`).",
    example: {
      message: "The amount is outside the merchant's limits (min_amount, max_amount).",
      min_amount: 100000,
      max_amount: 500000000,
      upstream_code: "AMOUNT_OUT_OF_RANGE",
    },
    user_message: {
      en: "The amount is outside the limits allowed for this payment. Please enter a different amount.",
      uz: "Summa bu toʻlov uchun ruxsat etilgan chegaradan tashqarida. Boshqa summa kiriting.",
      "uz-Cyrl": "Сумма бу тўлов учун рухсат этилган чегарадан ташқарида. Бошқа сумма киритинг.",
      ru: "Сумма выходит за допустимые пределы для этого платежа. Укажите другую сумму.",
    },
  },
  upstream_refused: {
    status: 422,
    meaning: "The payment service refused with a code the gateway does not know (`upstream_code`); nothing happened.",
    example: { message: "The payment service refused the request with LIMIT_EXCEEDED. Nothing was done.", upstream_code: "LIMIT_EXCEEDED" },
    user_message: {
      en: "The operation could not be completed and nothing was charged. Please try again later or contact support.",
      uz: "Amalni bajarib boʻlmadi, kartangizdan mablagʻ yechilmadi. Keyinroq qayta urinib koʻring yoki qoʻllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "Амални бажариб бўлмади, картангиздан маблағ ечилмади. Кейинроқ қайта уриниб кўринг ёки қўллаб-қувватлаш хизматига мурожаат қилинг.",
      ru: "Не удалось выполнить операцию, деньги не списаны. Попробуйте позже или обратитесь в службу поддержки.",
    },
  },
  rate_limited: {
    status: 429,
    meaning: "Too many calls from this user or address, or the sixth authorize of a receipt; retry after `Retry-After`.",
    example: { message: "Too many pay calls; wait before trying again." },
    user_message: {
      en: "Too many attempts. Please wait a little and try again.",
      uz: "Urinishlar juda koʻp. Biroz kutib, qayta urinib koʻring.",
      "uz-Cyrl": "Уринишлар жуда кўп. Бироз кутиб, қайта уриниб кўринг.",
      ru: "Слишком много попыток. Подождите немного и попробуйте снова.",
    },
  },
  risk_limited: {
    status: 429,
    meaning:
      "Rule 13: this user's uses of this card, this user's cards or OTP sends, or this card's users are past their limit (`rule` names it); nothing was sent upstream; retry after `Retry-After`.",
    example: {
      message: "This user used this card number too many times in the last hour (rule 13, user_card_uses_per_hour); retry after Retry-After seconds.",
      rule: "user_card_uses_per_hour",
    },
    user_message: {
      en: "For your security, this operation is temporarily limited. Please try again later.",
      uz: "Xavfsizligingiz uchun bu amal vaqtincha cheklandi. Keyinroq qayta urinib koʻring.",
      "uz-Cyrl": "Хавфсизлигингиз учун бу амал вақтинча чекланди. Кейинроқ қайта уриниб кўринг.",
      ru: "В целях безопасности эта операция временно ограничена. Попробуйте позже.",
    },
  },
  otp_resend_too_soon: {
    status: 429,
    meaning: "Authorize again before `wait` has passed; retry after `Retry-After`.",
    example: { message: "An OTP was sent moments ago; wait before asking for another." },
    user_message: {
      en: "A code was sent just now. Please wait a little before asking for a new one.",
      uz: "Kod hozirgina yuborildi. Yangi kod soʻrashdan oldin biroz kuting.",
      "uz-Cyrl": "Код ҳозиргина юборилди. Янги код сўрашдан олдин бироз кутинг.",
      ru: "Код только что отправлен. Подождите немного, прежде чем запрашивать новый.",
    },
  },
  internal_error: {
    status: 500,
    meaning: "A gateway bug; no input leads here.",
    example: { message: "The gateway failed to handle this request." },
    user_message: {
      en: "A technical error occurred. Please try again later.",
      uz: "Texnik xatolik yuz berdi. Keyinroq qayta urinib koʻring.",
      "uz-Cyrl": "Техник хатолик юз берди. Кейинроқ қайта уриниб кўринг.",
      ru: "Произошла техническая ошибка. Попробуйте позже.",
    },
  },
  upstream_error: {
    status: 502,
    meaning:
      "The payment service's answer was unusable, or it refused the gateway's credential; the outcome is being reconciled: read before retrying.",
    example: { message: "The payment service could not be reached, or the connection broke." },
    user_message: {
      en: `The result of this operation is not known yet. ${MAY_HAVE_GONE_THROUGH.en}`,
      uz: `Amal natijasi hali maʼlum emas. ${MAY_HAVE_GONE_THROUGH.uz}`,
      "uz-Cyrl": `Амал натижаси ҳали маълум эмас. ${MAY_HAVE_GONE_THROUGH["uz-Cyrl"]}`,
      ru: `Результат операции пока неизвестен. ${MAY_HAVE_GONE_THROUGH.ru}`,
    },
  },
  upstream_unavailable: {
    status: 503,
    meaning: "The payment service said it is busy or down: nothing happened; retry after `Retry-After`.",
    example: { message: "The payment service is busy or down and did nothing; retry after the time given." },
    user_message: {
      en: "The payment service is temporarily unavailable and nothing was charged. Please try again in a little while.",
      uz: "Toʻlov xizmati vaqtincha ishlamayapti, kartangizdan mablagʻ yechilmadi. Birozdan soʻng qayta urinib koʻring.",
      "uz-Cyrl": "Тўлов хизмати вақтинча ишламаяпти, картангиздан маблағ ечилмади. Бироздан сўнг қайта уриниб кўринг.",
      ru: "Платёжный сервис временно недоступен, деньги не списаны. Попробуйте ещё раз чуть позже.",
    },
  },
  not_ready: {
    status: 503,
    meaning:
      "The readiness probe failed (the payment service or D1 does not answer); or, after a rollback, the receipt or transfer was stored by a newer release of the gateway and nothing was done; retry after `Retry-After`.",
    example: { message: "Not ready: the payment service did not answer within 2 s." },
    user_message: {
      en: "The service is temporarily unavailable. Please try again in a little while.",
      uz: "Xizmat vaqtincha ishlamayapti. Birozdan soʻng qayta urinib koʻring.",
      "uz-Cyrl": "Хизмат вақтинча ишламаяпти. Бироздан сўнг қайта уриниб кўринг.",
      ru: "Сервис временно недоступен. Попробуйте ещё раз чуть позже.",
    },
  },
  service_misconfigured: {
    status: 503,
    meaning: "The deployment's configuration is unsafe (e.g. development credentials in production); every call answers this until it is fixed.",
    example: { message: "This deployment is misconfigured: TID_SECRET is not set." },
    user_message: {
      en: "The service is temporarily unavailable. Please try again later or contact support.",
      uz: "Xizmat vaqtincha ishlamayapti. Keyinroq qayta urinib koʻring yoki qoʻllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "Хизмат вақтинча ишламаяпти. Кейинроқ қайта уриниб кўринг ёки қўллаб-қувватлаш хизматига мурожаат қилинг.",
      ru: "Сервис временно недоступен. Попробуйте позже или обратитесь в службу поддержки.",
    },
  },
  upstream_timeout: {
    status: 504,
    meaning: "The payment service did not answer in time; the outcome is being reconciled: read before retrying.",
    example: { message: "The payment service did not answer in time." },
    user_message: {
      en: `The payment service has not answered yet. ${MAY_HAVE_GONE_THROUGH.en}`,
      uz: `Toʻlov xizmati hali javob bermadi. ${MAY_HAVE_GONE_THROUGH.uz}`,
      "uz-Cyrl": `Тўлов хизмати ҳали жавоб бермади. ${MAY_HAVE_GONE_THROUGH["uz-Cyrl"]}`,
      ru: `Платёжный сервис пока не ответил. ${MAY_HAVE_GONE_THROUGH.ru}`,
    },
  },
} as const satisfies Record<string, ErrorCodeRow>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Every code, in the table's order. */
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

const isDeclineReason = (reason: string | undefined): reason is DeclineReason => reason !== undefined && Object.hasOwn(DECLINE_REASONS, reason);

/**
 * The `user_message` of `code` in `language`. A card_declined says why the
 * card was declined, by its `decline_reason`; an unknown reason keeps
 * card_declined's own text.
 */
export function userMessage(code: ErrorCode, language: Language, declineReason?: string): string {
  const texts = code === "card_declined" && isDeclineReason(declineReason) ? DECLINE_REASONS[declineReason] : ERROR_CODES[code].user_message;
  return texts[language];
}

/** The error answer of `code`, as the document shows it (in English, the default). */
export const errorExample = (code: ErrorCode) => {
  const { message, ...fields } = ERROR_CODES[code].example as ErrorCodeRow["example"];
  const reason = typeof fields.decline_reason === "string" ? fields.decline_reason : undefined;
  return { error: { code, message, user_message: userMessage(code, "en", reason), request_id: EXAMPLE_REQUEST_ID, ...fields } };
};
