import { table } from './table';

table('es-ES', 'cardinals', [
  ['0', 'cero'],
  ['1', 'uno'],
  ['15', 'quince'],
  ['16', 'dieciséis'],
  ['21', 'veintiuno'],
  ['22', 'veintidós'],
  ['26', 'veintiséis'],
  ['31', 'treinta y uno'],
  ['99', 'noventa y nueve'],
  ['100', 'cien'],
  ['101', 'ciento uno'],
  ['200', 'doscientos'],
  ['500', 'quinientos'],
  ['700', 'setecientos'],
  ['999', 'novecientos noventa y nueve'],
  ['1000', 'mil'],
  ['1001', 'mil uno'],
  ['1.250', 'mil doscientos cincuenta'],
  ['2026', 'dos mil veintiséis'],
  ['21.000', 'veintiún mil'],
  ['100.000', 'cien mil'],
  ['1.000.000', 'un millón'],
  ['2.000.000', 'dos millones'],
  ['1.000.000.000', 'mil millones'],
  ['-5', 'menos cinco'],
]);

table('es-ES', 'ordinals, decimals, units', [
  ['1º', 'primero'],
  ['1ª', 'primera'],
  ['3º', 'tercero'],
  ['10º', 'décimo'],
  ['11º', 'undécimo'],
  ['21º', 'vigésimo primero'],
  ['3,14', 'tres coma catorce'],
  ['0,5', 'cero coma cinco'],
  ['45 %', 'cuarenta y cinco por ciento'],
  ['21 °C', 'veintiún grados Celsius'],
  ['21 min', 'veintiún minutos'],
  ['1 km', 'un kilómetro'],
  ['5 km', 'cinco kilómetros'],
  ['5-10 minutos', 'cinco a diez minutos'],
]);

table('es-ES', 'money', [
  ['1.250,50 €', 'mil doscientos cincuenta euros con cincuenta céntimos'],
  ['1 €', 'un euro'],
  ['21 €', 'veintiún euros'],
  ['0,50 €', 'cincuenta céntimos'],
  ['1 £', 'una libra'],
]);

table('es-ES', 'dates and times', [
  ['3 de marzo de 2026', 'tres de marzo de dos mil veintiséis'],
  ['03/04/2026', 'tres de abril de dos mil veintiséis'],
  ['2026-03-04', 'cuatro de marzo de dos mil veintiséis'],
  ['1 de mayo', 'uno de mayo'],
  ['10:30', 'diez y treinta'],
  ['1:15', 'una y quince'],
  ['21:00', 'veintiuna en punto'],
]);

table('es-419', 'Latin America: decimal point', [
  ['$1,250.50', 'mil doscientos cincuenta dólares con cincuenta centavos'],
  ['3.14', 'tres punto catorce'],
  ['1,250', 'mil doscientos cincuenta'],
  ['03/04/2026', 'tres de abril de dos mil veintiséis'],
  ['1 de mayo', 'primero de mayo'],
]);

table('es-MX', 'Mexico: decimal point', [
  ['2.5 kg', 'dos punto cinco kilogramos'],
  ['$100', 'cien dólares'],
]);
