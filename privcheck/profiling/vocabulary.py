"""Words: what column names and category values say about a column's role.

Names are split into lower-case tokens with accents removed (``dateOfBirth`` → date, of,
birth; ``Staatsangehörigkeit`` → staatsangehorigkeit) and matched against keywords in English
and the common other languages of Europe and the Americas (German, French, Spanish, Italian,
Dutch, Portuguese: ``Vorname``, ``prénom``, ``data_nascimento``, ``código_postal``, ``PLZ``). A
keyword of one word matches a token; one of six letters or more also matches inside a compound
(``patientbirthdate``, ``Kundennummer``); a phrase (``first_name``) matches its tokens in a
row or its joined form. Category values are matched the same way against small vocabularies
(sexes, marital statuses, countries …), weighted by how many rows hold each value.

This is evidence, not proof: the rules (``rules.py``) weigh it against the values, and what
they cannot settle is marked for review.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

# --------------------------------------------------------------------------- names


def normalise(text: str) -> str:
    """Lower case, accents removed, ß as ss."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return text.casefold().replace("ß", "ss")


def name_tokens(name: str) -> list[str]:
    """A column name as lower-case tokens: camelCase, snake_case, kebab-case and digits split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    spaced = re.sub(r"([A-Za-z])(\d)|(\d)([A-Za-z])", r"\1\3 \2\4", spaced)
    return [t for t in re.split(r"[^a-z0-9]+", normalise(spaced)) if t]


@dataclass(frozen=True)
class Concept:
    """A kind of column: the role it implies and the words that name it."""

    name: str
    role: str
    label: str
    keywords: frozenset[str]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: checked in this order: the first concept whose keyword a name holds wins
CONCEPTS: tuple[Concept, ...] = (
    Concept("email", "identifier", "an e-mail address", _words(
        "email e_mail emailaddress mail courriel correo correo_electronico posta_elettronica "
        "correio_eletronico endereco_eletronico correo_electronico adresse_mail "
        "emailadresse "
    )),
    Concept("phone", "identifier", "a phone number", _words(
        "phone telephone tel mobile cellphone cell fax telefon telefono portable handy gsm "
        "telefoonnummer cellulare movil phonenumber mobilnummer "
        "telefone celular telemovel fone whatsapp handynummer rufnummer festnetz "
        "telefoon mobiel mobielnummer numero_telephone "
    )),
    Concept("national_id", "identifier", "a national or official identifier", _words(
        "ssn social_security socialsecurity sin nin nino national_insurance national_id "
        "nationalid personnummer nir insee securite_sociale numero_secu bsn "
        "burgerservicenummer sofinummer dni nie nif codice_fiscale codicefiscale cf steuerid "
        "steuer_id steueridentifikationsnummer ahv avs passport passeport pasaporte reisepass "
        "passaporto paspoort driver_license drivers_license driving_licence driver_licence "
        "licence_number license_number tax_id taxid tin medicare nhs nhs_number mrn "
        "medical_record health_insurance_number insurance_number versichertennummer "
        "krankenversicherungsnummer policy_number id_card identity_card ausweis "
        "personalausweis carte_identite cedula "
        "cpf cnpj rg pis nis pasep cns cartao_sus titulo_eleitor ctps cnh nss "
        "numero_seguridad_social seguridad_social sozialversicherungsnummer sv_nummer "
        "rentenversicherungsnummer tessera_sanitaria partita_iva pesel oib curp rfc rut "
        "cuil cuit carte_vitale numero_securite_sociale personalausweisnummer "
        "fuhrerschein fuehrerschein permis_de_conduire licencia_de_conducir rijbewijs "
        "paspoortnummer identiteitskaart carteira_de_identidade "
    )),
    Concept("account", "identifier", "a bank account or card number", _words(
        "iban bic account_number accountno account_no bank_account card_number cardnumber "
        "credit_card creditcard ccn kontonummer rib cuenta conto_corrente rekeningnummer "
        "sort_code routing_number "
        "conta_bancaria numero_conta numero_da_conta cartao cartao_de_credito tarjeta "
        "numero_de_cuenta carta_di_credito kreditkarte carte_bancaire bankverbindung "
    )),
    Concept("online", "identifier", "an online identifier", _words(
        "ip ip_address ipaddress ipv4 ipv6 mac_address macaddress url website homepage username "
        "user_name login handle screen_name twitter facebook linkedin instagram device_id "
        "deviceid imei uuid guid cookie session_id sessionid"
    )),
    Concept("address", "identifier", "a postal address", _words(
        "address addr street street_address address_line addressline house_number housenumber "
        "hausnummer strasse adresse rue calle direccion indirizzo adres straat huisnummer "
        "domicile home_address apartment po_box anschrift "
        "endereco logradouro rua avenida morada numero_civico wohnadresse "
        "domicilio_fiscale "
    )),
    Concept("vehicle", "identifier", "a vehicle identifier", _words(
        "license_plate licence_plate number_plate plate kennzeichen immatriculation matricula "
        "targa kenteken vin "
        "placa renavam nummernschild plaque_immatriculation "
    )),
    Concept("biometric", "identifier", "a photo, signature or biometric", _words(
        "photo picture image signature fingerprint face_image biometric"
    )),
    Concept("person_name", "identifier", "a person's name", _words(
        "name first_name firstname given_name givenname forename fname last_name lastname lname "
        "surname family_name familyname full_name fullname middle_name middlename maiden_name "
        "maidenname nickname vorname nachname familienname nom prenom nom_de_famille apellido "
        "apellidos nombre_completo nome cognome naam voornaam achternaam familienaam "
        "contact_name patient_name customer_name client_name employee_name "
        "nombre sobrenome nome_completo nome_social apelido primeiro_nome ultimo_nome "
        "nom_complet nome_e_cognome voller_name vollstandiger_name tussenvoegsel "
        "geburtsname madchenname nom_naissance nom_usage "
    )),
    Concept("nationality", "quasi_identifier", "nationality or country of birth", _words(
        "nationality citizenship nationalite nacionalidad nazionalita nationaliteit "
        "staatsangehorigkeit staatsangehoerigkeit staatsburgerschaft native_country "
        "nativecountry country_of_birth countryofbirth birth_country birthcountry "
        "country_of_origin geburtsland pays_de_naissance pais_de_nacimiento "
        "nacionalidade naturalidade cittadinanza nationalitat nacionalidad "
        "pais_de_origem pais_nascimento "
    )),
    Concept("geography", "quasi_identifier", "a place of birth", _words(
        "birthplace place_of_birth placeofbirth birth_place geburtsort lieu_de_naissance "
        "lugar_de_nacimiento luogo_di_nascita geboorteplaats city_of_birth"
    )),
    Concept("birth", "quasi_identifier", "a date or year of birth", _words(
        "dob birth birthdate birth_date dateofbirth date_of_birth birthday born birthyear "
        "birth_year yob year_of_birth geburtsdatum geburtsjahr geburtstag naissance "
        "date_naissance datenaissance annee_naissance nacimiento fecha_nacimiento "
        "fechanacimiento nascita data_nascita datanascita geboortedatum geboortejaar "
        "nascimento data_nascimento data_de_nascimento dt_nasc dtnasc dt_nascimento "
        "ano_nascimento fecha_de_nacimiento data_di_nascita anno_di_nascita jahrgang "
        "geboren "
    )),
    Concept("age", "quasi_identifier", "an age", _words(
        "age ages agegroup age_group ageband age_band age_years age_at alter edad eta leeftijd "
        "lebensalter "
        "idade "
    )),
    Concept("sex", "quasi_identifier", "sex or gender", _words(
        "sex gender geschlecht sexe genre sexo genero sesso geslacht"
    )),
    Concept("postal", "quasi_identifier", "a postal code", _words(
        "zip zipcode zip_code postcode postal postalcode postal_code plz postleitzahl "
        "code_postal codepostal cp codigo_postal cap postnummer postnr "
        "cep cod_postal codice_postale npa kod_pocztowy postnummer "
    )),
    Concept("ethnicity", "quasi_identifier", "ethnicity or race", _words(
        "race ethnicity ethnic ethnic_group ethnie etnia herkunft ancestry hautfarbe "
        "etnicidad etnicita afkomst "
        "raca raza razza cor_raca etnie "
    )),
    Concept("marital", "quasi_identifier", "a marital status", _words(
        "marital marital_status maritalstatus civil_status civilstatus relationship_status "
        "familienstand etat_civil situation_familiale estado_civil stato_civile "
        "burgerlijke_staat married relationship"
    )),
    Concept("education", "quasi_identifier", "education", _words(
        "education educational education_level degree qualification schooling school diploma "
        "education_num educationnum bildung schulabschluss abschluss ausbildung diplome "
        "niveau_etudes etudes formation educacion estudios nivel_educativo istruzione "
        "titolo_di_studio opleiding onderwijs "
        "escolaridade grau_de_instrucao instrucao formacao nivel_de_estudios "
        "bildungsabschluss opleidingsniveau "
    )),
    Concept("occupation", "quasi_identifier", "an occupation or employment", _words(
        "occupation job job_title jobtitle profession employment employment_status workclass "
        "work_class industry sector employer department dept division pay_grade "
        "paygrade beruf taetigkeit tatigkeit arbeitgeber abteilung branche metier "
        "emploi poste employeur secteur ocupacion profesion empleo puesto trabajo professione "
        "occupazione lavoro impiego beroep functie werkgever afdeling "
        "profissao ocupacao cargo funcao empregador setor departamento reparto mansione "
        "qualifica "
    )),
    Concept("geography", "quasi_identifier", "a place of residence", _words(
        "city town village municipality county district region state province country "
        "residence place location locality borough neighbourhood neighborhood suburb commune "
        "departement canton kanton ort wohnort stadt gemeinde bundesland kreis landkreis "
        "ville pays ciudad municipio provincia pais localidad citta comune regione paese "
        "stad gemeente provincie woonplaats lat latitude lon lng longitude geo geolocation "
        "coordinates gps msa fips lsoa census_tract tract "
        "cidade uf bairro distrito comarca regiao localidade concelho freguesia plaats "
        "quartier arrondissement municipality_name woonwijk"
    )),
    Concept("health", "sensitive", "health", _words(
        "diagnosis diagnoses diagnose dx icd icd10 icd_10 icd9 disease condition illness "
        "disorder treatment therapy medication medicine drug prescription symptom symptoms "
        "health health_status medical surgery hiv aids cancer tumor diabetes pregnancy "
        "pregnant disability handicap mental psychiatric depression allergy vaccination "
        "vaccine blood_type bloodtype genetic test_result lab_result smoker smoking alcohol "
        "cause_of_death krankheit behandlung medikament gesundheit maladie diagnostic "
        "traitement sante medicament enfermedad diagnostico tratamiento salud medicamento "
        "malattia diagnosi trattamento salute farmaco ziekte behandeling gezondheid medicijn "
        "doenca doencas cid10 cid_10 tratamento saude alergia allergie befund "
    )),
    Concept("income", "sensitive", "income or finances", _words(
        "income salary salaries salary_class wage wages pay earnings compensation remuneration "
        "bonus net_worth wealth debt debts loan credit_score creditscore credit_rating "
        "pension benefits welfare allowance einkommen gehalt lohn verdienst vermogen "
        "schulden revenu revenus salaire dette ingreso ingresos salario sueldo renta deuda "
        "reddito stipendio retribuzione debito inkomen salaris loon schuld "
        "renda remuneracao rendimento ordenado vencimento divida patrimonio "
    )),
    Concept("special", "sensitive", "a special category (religion, politics, sexuality, "
            "criminal record, union membership)", _words(
        "religion religious faith belief confession konfession political politics party "
        "political_party vote voting union_membership trade_union sexual_orientation "
        "orientation sexuality criminal conviction convictions offence offense crime arrest "
        "prison glaube religione orientamento "
        "religiao religie geloof partido filiacao_partidaria orientacao_sexual "
        "orientation_sexuelle orientacion_sexual sindicato gewerkschaft syndicat vakbond "
        "antecedentes_criminais antecedentes_penales vorstrafen casier_judiciaire "
        "casellario_giudiziale "
    )),
    Concept("employment_record", "sensitive", "an employment record (rating, sanction, "
            "absence)", _words(
        "performance performance_rating appraisal disciplinary sanction "
        "sick_leave sickness absence absences absence_reason termination_reason "
        "dismissal grievance beurteilung abmahnung krankmeldung "
        "avaliacao_desempenho desempenho faltas afastamento atestado licenca_medica "
        "evaluacion ausencias valutazione assenze fehlzeiten krankheitstage "
    )),
)  # fmt: skip

#: tokens that make a ``…_id`` / ``…_number`` column a person's identifier
PERSON_WORDS = _words(
    "patient customer client employee member user person subject participant student applicant "
    "beneficiary policyholder insured staff worker personnel case record file contract account "
    "citizen individual respondent donor visitor guest passenger kunde kunden mitarbeiter "
    "personal patient patiente cliente empleado paziente dipendente klant medewerker "
    "paciente funcionario colaborador aluno estudante alumno studente schuler leerling utente "
    "assure versicherter beschaftigte salarie employe klient"
)
#: tokens of an identifier of a group, not of a person (``hospital_id``, ``site_id``)
GROUP_WORDS = _words(
    "hospital clinic site ward unit department dept store shop branch region country state "
    "city product item order transaction batch study trial centre center facility team "
    "project category class type group plan provider insurer vendor supplier company org "
    "organisation organization school course household family visit encounter episode "
    "admission claim invoice event session"
)
#: tokens that name a key by themselves (``id``, ``record_id``)
ID_WORDS = _words(
    "id ids ident identifier identifiant kennung uid pid uuid guid matricola matricule"
)
#: tokens that name a key only next to a person word (``customer_number``, not
#: ``number_of_children``)
NUMBER_WORDS = _words("number no nr num nummer numero nro code codigo codice cod ref reference")
#: a German or Dutch compound key: a person word and ``nummer`` in one token
#: (``Personalnummer``, ``Kundennummer``, ``klantnummer``, ``Fallnummer``)
_COMPOUND_KEY = re.compile(
    r"^(personal|personeels|kunden|klant|patienten|patient|mitarbeiter|medewerker|fall|"
    r"matrikel|mitglieds|lid|leden|versicherten|schuler|leerling|kund|client|dossier|akten)"
    r"(nummer|nr|id|kennung)$"
)
#: tokens after which a ``name`` is not a person's name
NON_PERSON_NAMES = _words(
    "product company org organisation organization business brand drug medication medicine "
    "hospital clinic school university city town country state file department dept unit "
    "ward team job course store shop branch bank employer plan project category item "
    "variable field column table app device host server model diagnosis disease test insurer "
    "vendor supplier utility street region district produit entreprise societe ville pays "
    "produkt firma stadt land producto empresa ciudad prodotto azienda citta dataset"
)


def _keyword_matches(keyword: str, tokens: list[str], joined: str) -> bool:
    parts = keyword.split("_")
    if len(parts) == 1:
        return keyword in tokens or (len(keyword) >= 6 and keyword in joined)
    n = len(parts)
    if any(tokens[i : i + n] == parts for i in range(len(tokens) - n + 1)):
        return True
    compact = "".join(parts)
    return compact in tokens or (len(compact) >= 8 and compact in joined)


@dataclass(frozen=True)
class NameHit:
    """What a column's name says: the concept and the keyword that matched."""

    concept: Concept
    keyword: str


#: each concept's keywords, longest first (the most specific match wins)
_KEYWORDS_LONGEST_FIRST = tuple(
    (concept, tuple(sorted(concept.keywords, key=len, reverse=True))) for concept in CONCEPTS
)


@functools.lru_cache(maxsize=4096)
def concept_of_name(name: str) -> NameHit | None:
    """The first concept (in ``CONCEPTS`` order) whose keyword the name holds (kept per name:
    a draft asks of every column several times, over some 600 keywords)."""
    tokens = name_tokens(name)
    joined = "".join(tokens)
    for concept, keywords in _KEYWORDS_LONGEST_FIRST:
        for keyword in keywords:
            if not _keyword_matches(keyword, tokens, joined):
                continue
            if (
                concept.name == "person_name"
                and keyword == "name"
                and set(tokens) & NON_PERSON_NAMES
            ):
                break  # a product's or a city's name: another concept may still match
            return NameHit(concept, keyword)
    return None


def id_name(name: str) -> str | None:
    """``person`` when the name reads as a person's or a record's key (``patient_id``,
    ``customer_number``, ``id``, ``patient``), ``group`` when it is a group's (``hospital_id``),
    else None."""
    tokens = name_tokens(name)
    if not tokens:
        return None
    persons = set(tokens) & PERSON_WORDS
    groups = set(tokens) & GROUP_WORDS
    strong = [
        t
        for t in tokens
        if t in ID_WORDS or (t.endswith("id") and t[:-2] in PERSON_WORDS) or _COMPOUND_KEY.match(t)
    ]
    weak = [t for t in tokens if t in NUMBER_WORDS]
    if strong or (weak and persons):
        return "group" if groups and not persons else "person"
    if weak and groups:
        return "group"
    if len(tokens) == 1 and tokens[0] in PERSON_WORDS:
        return "person"
    return None


#: pieces of a name that make numbers a measure, not a key (``FEDTAX``, ``PTOTVAL``, ``costs``)
MEASURE_PARTS = tuple(
    _words(
        "amount amt val value total tot sum price cost fee tax wgt weight height score count cnt "
        "qty quantity sales revenue profit asset capital debt fund balance turnover spend expens "
        "contrib contrb earn wage salar income pay rate ratio pct percent duration length size "
        "mass volume area dose level bmi pressure"
    )
)


def measure_name(name: str) -> str | None:
    """The measure word a name holds, if any (matched inside compounds: ``FEDTAX``)."""
    joined = "".join(name_tokens(name))
    return next((part for part in MEASURE_PARTS if part in joined), None)


# --------------------------------------------------------------------------- values


def value_tokens(value: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9]+", normalise(value)) if t]


SEX_VALUES = _words(
    "m f male female man woman men women w mann frau mannlich weiblich homme femme h hombre "
    "mujer masculino femenino maschio femmina vrouw x other diverse divers nonbinary "
    "non_binary unknown u boy girl"
)
SEX_CORE = _words(
    "m f male female man woman mann frau mannlich weiblich homme femme hombre mujer masculino "
    "femenino maschio femmina vrouw"
)

VOCABULARIES: dict[str, tuple[str, str, frozenset[str]]] = {
    "marital": ("quasi_identifier", "marital statuses", _words(
        "married single divorced widowed widow widower separated never spouse partner "
        "partnership cohabiting engaged unmarried ledig verheiratet geschieden verwitwet "
        "celibataire marie mariee divorce divorcee veuf veuve soltero soltera casado casada "
        "divorciado divorciada viudo viuda celibe nubile sposato sposata divorziato vedovo "
        "gehuwd ongehuwd gescheiden weduwe"
    )),
    "ethnicity": ("quasi_identifier", "ethnicities", _words(
        "white black asian hispanic latino latina latinx caucasian african indian eskimo "
        "pacific islander native hawaiian alaska alaskan arab chinese mixed multiracial "
        "aboriginal maori amer pac biracial"
    )),
    "education": ("quasi_identifier", "education levels", _words(
        "bachelors bachelor masters master doctorate phd doctoral hs grad graduate "
        "undergraduate college highschool secondary primary elementary preschool kindergarten "
        "diploma degree assoc acdm voc prof associate vocational university 11th 10th 9th "
        "12th 7th 8th 5th 6th 1st 4th ged mba msc bsc abitur hauptschule realschule gymnasium "
        "licence baccalaureat bachillerato licenciatura laurea mbo hbo havo vwo"
    )),
    "occupation": ("quasi_identifier", "occupations or employment classes", _words(
        "tech support craft repair service sales exec managerial prof specialty handlers "
        "cleaners machine inspct adm clerical farming fishing transport moving priv house serv "
        "protective armed forces manager engineer nurse teacher clerk driver doctor physician "
        "lawyer accountant developer analyst technician cashier cook chef consultant director "
        "assistant administrator officer worker operator mechanic electrician plumber "
        "carpenter farmer student retired unemployed self emp employed inc gov government "
        "federal local without pay worked homemaker scientist designer architect pharmacist "
        "dentist secretary receptionist salesperson executive professional labourer laborer"
    )),
    "health": ("sensitive", "health conditions", _words(
        "diabetes hypertension asthma cancer hiv aids depression anxiety covid influenza flu "
        "pneumonia arthritis obesity stroke copd dementia alzheimer epilepsy migraine "
        "hepatitis tuberculosis schizophrenia bipolar heart disease disorder infection "
        "fracture injury syndrome cardiac renal failure chronic acute tumor tumour carcinoma "
        "leukemia lymphoma allergy eczema psoriasis anemia anaemia bronchitis sinusitis "
        "gastritis ulcer cirrhosis pregnancy healthy"
    )),
    "religion": ("sensitive", "religions", _words(
        "christian catholic protestant muslim islam jewish judaism hindu buddhist sikh atheist "
        "agnostic orthodox evangelical anglican lutheran"
    )),
}  # fmt: skip

#: countries (English short names, and the spellings of UCI Adult) as token tuples
_COUNTRIES = """
afghanistan albania algeria andorra angola argentina armenia australia austria azerbaijan
bahamas bahrain bangladesh barbados belarus belgium belize benin bhutan bolivia bosnia
botswana brazil brunei bulgaria burkina-faso burundi cambodia cameroon canada cape-verde chad
chile china colombia comoros congo costa-rica croatia cuba cyprus czechia czech-republic
denmark djibouti dominica dominican-republic ecuador egypt el-salvador england eritrea estonia
eswatini ethiopia fiji finland france gabon gambia georgia germany ghana greece grenada
guatemala guinea guyana haiti holand-netherlands honduras hong hong-kong hungary iceland india
indonesia iran iraq ireland israel italy ivory-coast jamaica japan jordan kazakhstan kenya
kiribati korea kosovo kuwait kyrgyzstan laos latvia lebanon lesotho liberia libya
liechtenstein lithuania luxembourg madagascar malawi malaysia maldives mali malta mauritania
mauritius mexico micronesia moldova monaco mongolia montenegro morocco mozambique myanmar
namibia nepal netherlands new-zealand nicaragua niger nigeria north-korea north-macedonia
norway oman outlying-us(guam-usvi-etc) pakistan palau palestine panama papua-new-guinea
paraguay peru philippines poland portugal puerto-rico qatar romania russia rwanda samoa
san-marino saudi-arabia scotland senegal serbia seychelles sierra-leone singapore slovakia
slovenia somalia south south-africa south-korea south-sudan spain sri-lanka sudan suriname
sweden switzerland syria taiwan tajikistan tanzania thailand togo tonga trinadad&tobago
trinidad-and-tobago tunisia turkey turkmenistan uganda ukraine united-arab-emirates
united-kingdom united-states usa uk uruguay uzbekistan vanuatu vatican venezuela vietnam wales
yemen yugoslavia zambia zimbabwe deutschland frankreich italien spanien osterreich schweiz
allemagne espagne italie suisse belgique alemania francia espana italia suiza paesi-bassi
germania spagna nederland duitsland frankrijk spanje
"""
COUNTRIES = frozenset(" ".join(value_tokens(c)) for c in _COUNTRIES.split())

_US_STATES = """
al ak az ar ca co ct de fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj nm ny
nc nd oh ok or pa ri sc sd tn tx ut vt va wa wv wi wy dc alabama alaska arizona arkansas
california colorado connecticut delaware florida georgia hawaii idaho illinois indiana iowa
kansas kentucky louisiana maine maryland massachusetts michigan minnesota mississippi missouri
montana nebraska nevada new-hampshire new-jersey new-mexico new-york north-carolina
north-dakota ohio oklahoma oregon pennsylvania rhode-island south-carolina south-dakota
tennessee texas utah vermont virginia washington west-virginia wisconsin wyoming
district-of-columbia
"""
US_STATES = frozenset(" ".join(value_tokens(s)) for s in _US_STATES.split())
